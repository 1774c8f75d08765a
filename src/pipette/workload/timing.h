// Seconds of a stored request from the worker's own clock readings in its raw facts, and a
// stored sample as measured work, for the workloads' Workload::Timed.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "pipette/estimate/history.h"

namespace pipette::workload {

// From `t_start_ns` to `t_end_ns`; nullopt when either is missing or the span is not positive.
std::optional<double> SpanSeconds(const nlohmann::json& raw);

// A scored chunk as work of `kind`: per token of the chunk (its request's `n_ctx`, else its
// `n_tokens`), over its span.
std::optional<estimate::Measured> ChunkTimed(const nlohmann::json& raw, const std::string& kind);

// One item (an mc question, a gen prompt) as one unit of `kind`, over its span.
std::optional<estimate::Measured> ItemTimed(const nlohmann::json& raw, const std::string& kind);

}  // namespace pipette::workload
