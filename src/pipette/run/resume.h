// `pipette run --resume RUN`: which cells of a stored run are measured again. Pure: the stored
// cells in, a plan out, so every rule is tested without a store or a worker.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/plan/plan.h"
#include "pipette/store/store.h"
#include "pipette/util/result.h"
#include "pipette/workload/workload.h"

namespace pipette::run {

struct ResumePlan {
  int64_t run_id = 0;
  int64_t resumes_seen = 0;          // the run's resume count when it was planned
  std::map<int, int64_t> done;       // cell index -> its complete cell (measured once, kept)
  std::map<int, int64_t> supersede;  // cell index -> the earlier cell measured again from start
  std::map<int, int64_t> cut_short;  // those of them that were cut short (not failed)
  std::vector<int> to_run;           // cell indexes measured now, in plan order
  int failed_kept = 0;               // failed cells left as they are (no --retry-failed)

  // What each workload takes up from the kept cells (the references they recorded, which the
  // cells measured now compare with), by workload name (workload::Workload::ResumeState).
  std::map<std::string, nlohmann::json> workload_state;
};

// Cells with no complete result are measured: those never started, and those cut short
// (running, interrupted, abandoned). Failed cells only with `retry_failed`. The stored cells must
// be those of this plan: the same index and key, else an input error saying what differs.
Result<ResumePlan> PlanResume(const std::vector<plan::Cell>& cells,
                              const std::vector<store::CellRecord>& stored, bool retry_failed);

// Takes from the store what each workload needs of the kept cells (the kld reference
// distribution, the divergence reference cell: the one the kept cells were compared with, else
// the first complete cell of the reference model), through each workload's ResumeState. An input
// error when the cells to measure need a kept reference that cannot be reused (a kld reference
// written before store schema 2, without its token hash). `workloads`: those the run has
// (workload::Registered() from app/).
Status LoadReferences(store::Store& store, const config::Experiment& ex,
                      const std::vector<plan::Cell>& cells,
                      const std::vector<std::unique_ptr<workload::Workload>>& workloads,
                      ResumePlan* plan);

// What differs between the experiment a run recorded (as JSON text: Experiment::Resolved() or
// Canonical()) and the one given now: "tests: [pp16] then, [pp16, tg4] now; ..."; empty when equal
// or when the run recorded none.
std::string DescribeDifference(const std::string& then, const std::string& now);

}  // namespace pipette::run
