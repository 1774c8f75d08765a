// `pipette predict`'s output: the predictions (metrics/predict.h) as one table per group with its
// verdict, in Markdown or JSON. Formats only; every number comes from metrics::Predict.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "pipette/metrics/predict.h"
#include "pipette/report/table.h"

namespace pipette::report {

// The group's rows: model, quant, test, depth, bytes per token, measured, predicted, error,
// bw_util; the reference marked.
Table PredictionTable(const metrics::PredictionGroup& group);
// "bandwidth-bound: ..." or "not bandwidth-bound: ..." or that there is nothing to compare.
std::string PredictionVerdict(const metrics::PredictionGroup& group);

void WritePredictionsMarkdown(const std::vector<metrics::PredictionGroup>& groups,
                              std::ostream& out);
// {"schema": "pipette.predict", "schema_version": 1, "groups": [...]}
nlohmann::ordered_json PredictionsJson(const std::vector<metrics::PredictionGroup>& groups);

}  // namespace pipette::report
