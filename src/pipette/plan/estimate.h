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
// request, and per test kind ("pp", "tg", "ttft") the median seconds per token, as a fallback
// for cells never run before.
struct History {
  std::map<std::pair<std::string, std::string>, double> seconds_per_request;
  std::map<std::string, double> seconds_per_token;
};

struct Estimate {
  double seconds = 0;  // of the speed tests that history covers
  int covered = 0;     // (cell, test) pairs with an estimate
  int uncovered = 0;   // without one (no earlier measurement of that kind)
};

// Speed tests only (quality workloads are not estimated yet); warm-ups count like repetitions.
Estimate EstimateRun(const config::Experiment& ex, const std::vector<Cell>& cells,
                     const History& history);

}  // namespace pipette::plan
