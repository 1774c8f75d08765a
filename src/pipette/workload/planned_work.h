// The work a plan holds, as the estimator counts it (estimate/estimator.h): a model load where
// the load key changes, then each workload's own (Workload::PlanWork). The workloads are given.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "pipette/config/experiment.h"
#include "pipette/estimate/estimator.h"
#include "pipette/plan/plan.h"
#include "pipette/runtime/params.h"
#include "pipette/workload/workload.h"

namespace pipette::workload {

using Workloads = std::vector<std::unique_ptr<Workload>>;

// The work of the cells `include` accepts, in cell order: a model load where the load key changes
// from the cell before, then each of `workloads`' own (Workload::PlanWork).
std::vector<estimate::Work> PlannedWork(const config::Experiment& ex,
                                        const std::vector<plan::Cell>& cells,
                                        const runtime::ParamRegistry& registry,
                                        const Workloads& workloads,
                                        const std::function<bool(const plan::Cell&)>& include = {});

// The plan's estimate (`pipette run --dry-run`) from history alone.
estimate::Estimate EstimateRun(const config::Experiment& ex, const std::vector<plan::Cell>& cells,
                               const runtime::ParamRegistry& registry, const Workloads& workloads,
                               const estimate::History& history);

}  // namespace pipette::workload
