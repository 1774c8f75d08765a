// The work a plan holds, as the estimator counts it (estimate/estimator.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "pipette/config/experiment.h"
#include "pipette/config/params.h"
#include "pipette/estimate/estimator.h"
#include "pipette/plan/plan.h"

namespace pipette::estimate {

// Chunks a corpus workload will score: at most `chunks` (0: all), guessing 4 bytes per token;
// `chunks` itself when the corpus size is unknown (0).
int64_t GuessChunks(int64_t corpus_bytes, int n_ctx, int chunks);
// GuessChunks for the corpus file at `path` (its size unknown when it cannot be read).
int64_t CorpusChunks(const std::string& path, int n_ctx, int chunks);
// Items a dataset workload runs: `limit` of `n_items` (0: all).
int64_t Items(int64_t limit, int64_t n_items);

// The work of the cells `include` accepts, in cell order: a model load where the load key changes
// from the cell before, then each registered workload's own (workload::Workload::PlanWork).
std::vector<Work> PlannedWork(const config::Experiment& ex, const std::vector<plan::Cell>& cells,
                              const config::ParamRegistry& registry,
                              const std::function<bool(const plan::Cell&)>& include = {});

// The plan's estimate (`pipette run --dry-run`) from history alone.
Estimate EstimateRun(const config::Experiment& ex, const std::vector<plan::Cell>& cells,
                     const config::ParamRegistry& registry, const History& history);

}  // namespace pipette::estimate
