// Figures that count items passing a check (mc's acc, gen's format_ok): over the whole set, per
// language, per task type and per both, with Wilson intervals; and a dataset's tokenizer density.
// Shared by the mc and gen derivations.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipette/metrics/derive.h"

namespace pipette::workload {

// One item's outcome for proportion figures (accuracy, format compliance).
struct Proportion {
  std::string language, task_type;
  std::map<std::string, bool> ok;  // metric -> passed
};

// Rows of `test` for the whole set, per language, per task type and per both, with Wilson
// intervals; the per-item 0/1 outcomes are the samples. `info`: the dataset's stored facts.
void AddProportionRows(const metrics::ResultRow& base, const std::string& test,
                       const nlohmann::json& info, const std::vector<Proportion>& items,
                       const std::vector<std::string>& metrics,
                       std::vector<metrics::ResultRow>* rows);

// tok_per_kchar of a dataset's own item texts (the `test` samples' text_tokens / text_chars),
// for all items ("") and per language.
void AddDensityRows(const metrics::ResultRow& base, const std::string& test,
                    const nlohmann::json& info, const std::vector<store::SampleRecord>& samples,
                    std::vector<metrics::ResultRow>* rows);

}  // namespace pipette::workload
