// How long a plan will take, from what earlier runs measured (`pipette run --dry-run`).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pipette/config/experiment.h"
#include "pipette/plan/plan.h"

namespace pipette::plan {

// Measured request times of earlier runs: per (cell key, test) the median seconds of one
// request, and per kind the median seconds per unit, as a fallback for cells never run before:
// "pp", "tg", "ttft" per token; "score" per scored-request token (ppl, kld chunks); "gen" per
// generation item.
struct History {
  std::map<std::pair<std::string, std::string>, double> seconds_per_request;
  std::map<std::string, double> seconds_per_token;
};

struct Estimate {
  double seconds = 0;  // of the work that history covers
  int covered = 0;     // (cell, test or workload) pairs with an estimate
  int uncovered = 0;   // without one (no earlier measurement of that kind; mc is never covered)
};

// Chunks a corpus workload will score: at most `chunks` (0: all), guessing 4 bytes per token;
// `chunks` itself when the corpus size is unknown (0).
int64_t GuessChunks(int64_t corpus_bytes, int n_ctx, int chunks);

// Speed tests (warm-ups count like repetitions) and the ppl, kld and gen workloads; multiple
// choice is not estimated.
Estimate EstimateRun(const config::Experiment& ex, const std::vector<Cell>& cells,
                     const History& history);

}  // namespace pipette::plan
