// What a workload takes up when a stored run is resumed (`pipette run --resume`): the references
// its kept cells recorded, read from the store before the run (run/resume.h LoadReferences) and
// handed to the run's workloads (Workload::ResumeState, Workload::Resume) as JSON, so the resume
// plan names no workload.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pipette/plan/plan.h"

namespace pipette::workload {

struct ResumeInput {
  int64_t run_id = 0;
  const std::vector<plan::Cell>* cells = nullptr;  // the run's plan
  std::map<int, int64_t> kept;                     // cell index -> its complete cell, kept
  // Cell index -> the cell cut short (interrupted, abandoned) that it is measured again for: a
  // workload may take up what that cell stored (the tasks workload: its scored items).
  std::map<int, int64_t> cut_short;
};

// The stored id of the first kept cell of `model`, in plan order (as a run from its start would
// take it as a reference); 0 when none is kept.
int64_t FirstKeptCellOf(const ResumeInput& in, const std::string& model);

}  // namespace pipette::workload
