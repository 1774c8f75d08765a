#include "pipette/workload/planned_work.h"

#include <string>

namespace pipette::workload {

std::vector<estimate::Work> PlannedWork(const config::Experiment& ex,
                                        const std::vector<plan::Cell>& cells,
                                        const runtime::ParamRegistry& registry,
                                        const Workloads& workloads,
                                        const std::function<bool(const plan::Cell&)>& include) {
  std::vector<estimate::Work> work;
  std::string last_load;
  std::vector<const plan::Cell*> included;
  for (const plan::Cell& c : cells) {
    if (include && !include(c)) continue;
    included.push_back(&c);
    const std::string load = c.LoadKey(registry);
    const size_t first = work.size();
    if (load != last_load) work.push_back({c.Key(), "load", "load", 1, 1});
    last_load = load;
    for (const auto& w : workloads) w->PlanWork(ex, c, &work);
    // Another device's work learns its own rates.
    for (size_t i = first; i < work.size(); ++i) {
      work[i].kind = estimate::DeviceKind(work[i].kind, c.device.IsLocal() ? "" : c.device.name);
    }
  }
  // Interleaved (config::Experiment::interleave), every later round loads a model again where
  // the worker holds another: at each change of model along the cells, the first cell's included
  // when the round before ended on another.
  for (int round = 1; ex.interleave && round < ex.repetitions; ++round) {
    for (const plan::Cell* c : included) {
      const std::string load = c->LoadKey(registry);
      if (load != last_load) {
        work.push_back({c->Key(), "load",
                        estimate::DeviceKind("load", c->device.IsLocal() ? "" : c->device.name), 1,
                        1});
      }
      last_load = load;
    }
  }
  return work;
}

estimate::Estimate EstimateRun(const config::Experiment& ex, const std::vector<plan::Cell>& cells,
                               const runtime::ParamRegistry& registry, const Workloads& workloads,
                               const estimate::History& history) {
  estimate::Estimator e(history);
  for (const estimate::Work& w : PlannedWork(ex, cells, registry, workloads)) e.Plan(w);
  return e.FromHistory();
}

}  // namespace pipette::workload
