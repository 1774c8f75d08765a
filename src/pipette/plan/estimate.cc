#include "pipette/plan/estimate.h"

namespace pipette::plan {

Estimate EstimateRun(const config::Experiment& ex, const std::vector<Cell>& cells,
                     const History& history) {
  Estimate e;
  const double requests = ex.warmup + ex.repetitions;
  for (const Cell& c : cells) {
    for (const config::TestSpec& t : ex.tests) {
      auto exact = history.seconds_per_request.find({c.Key(), t.name});
      if (exact != history.seconds_per_request.end()) {
        e.seconds += exact->second * requests;
        ++e.covered;
        continue;
      }
      const char* kind = t.kind == config::TestKind::kPP   ? "pp"
                         : t.kind == config::TestKind::kTG ? "tg"
                                                           : "ttft";
      auto rate = history.seconds_per_token.find(kind);
      if (rate == history.seconds_per_token.end()) {
        ++e.uncovered;
        continue;
      }
      e.seconds += rate->second * t.n * requests;
      ++e.covered;
    }
  }
  return e;
}

}  // namespace pipette::plan
