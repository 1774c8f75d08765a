// `pipette run --resume RUN`: which cells of a stored run are measured again. Pure: the stored
// cells in, a plan out, so every rule is tested without a store or a worker.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pipette/plan/plan.h"
#include "pipette/store/store.h"
#include "pipette/util/result.h"

namespace pipette::run {

struct ResumePlan {
  int64_t run_id = 0;
  std::map<int, int64_t> done;       // cell index -> its complete cell (measured once, kept)
  std::map<int, int64_t> supersede;  // cell index -> the earlier cell measured again from start
  std::vector<int> to_run;           // cell indexes measured now, in plan order
  int failed_kept = 0;               // failed cells left as they are (no --retry-failed)
};

// Cells with no complete result are measured: those never started, and those cut short
// (running, interrupted, abandoned). Failed cells only with `retry_failed`. The stored cells must
// be those of this plan: the same index and key, else an input error saying what differs.
Result<ResumePlan> PlanResume(const std::vector<plan::Cell>& cells,
                              const std::vector<store::CellRecord>& stored, bool retry_failed);

// What differs between the resolved experiment a run recorded (Experiment::Canonical() as JSON
// text) and the one given now: "tests: [pp16] then, [pp16, tg4] now; ..."; empty when equal or
// when the run recorded none.
std::string DescribeDifference(const std::string& then, const std::string& now);

}  // namespace pipette::run
