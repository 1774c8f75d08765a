// The spec of quality: gen (docs/metrics.md "gen tasks"), as resolved, and its def
// (config/spec_def.h); written as a dataset workload (workload/dataset_spec.h).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "pipette/config/experiment.h"
#include "pipette/config/spec_def.h"

namespace pipette::workload {

// Generation with checkers, resolved: greedy, the model's chat template.
struct GenSpec {
  std::string dataset;  // absolute path to the JSONL file
  int limit = 0;        // the first `limit` items; 0 = all
  // Variables for the chat template (llama-server's chat_template_kwargs): name -> JSON scalar.
  nlohmann::json template_options = nlohmann::json::object();
  int64_t n_items = 0;
  int64_t max_need = 0;  // bound on prompt + template + generated tokens of the largest item
  int max_line = 0;      // the dataset's line of that item (of the first `limit`)
  int line = 0;
};
inline constexpr const char* kDefaultGenDataset = "gen/pipette-gen-v1.jsonl";

const config::SpecDef& GenSpecDef();

// The experiment's gen spec, or nullptr when it has none.
const GenSpec* GenSpecOf(const config::Experiment& ex);
// Gives `ex` this gen spec (tests and tools that make an experiment without a file).
void SetGenSpec(config::Experiment* ex, GenSpec spec);

}  // namespace pipette::workload
