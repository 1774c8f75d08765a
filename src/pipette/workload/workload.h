// A workload: one kind of measurement a cell runs after its model is loaded and its context made
// (the speed tests, ppl, kld, mc, gen). The runner knows none by name: it asks each registered
// workload (registry.h) which phases the experiment gives it and which ops each needs, plans the
// time-left estimate with it, and runs its phases in order. docs/architecture.md "Adding a
// workload".
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pipette/config/experiment.h"
#include "pipette/estimate/estimator.h"
#include "pipette/run/resume.h"
#include "pipette/workload/context.h"

namespace pipette::workload {

// One phase of a cell: announced to the progress sink, run by Workload::Run. `ops`: the protocol
// ops it sends; a runtime whose worker serves not all of them gets the phase recorded as n/a.
struct Phase {
  std::string name;
  std::vector<std::string> ops;
};

// One instance serves one run: what it keeps between cells (a dataset read once, a reference
// distribution) are its members.
class Workload {
 public:
  virtual ~Workload() = default;
  virtual std::string Name() const = 0;
  // The phases the experiment asks of this workload, in order; none: it does not run.
  virtual std::vector<Phase> Phases(const config::Experiment& ex) const = 0;
  // Tokens a cell's context must hold for this workload with the cell's `depth` (0: none).
  virtual int64_t ContextNeed(const config::Experiment& ex, int64_t depth) const = 0;
  // Appends the work it plans for `cell` (estimate/estimator.h), for the one time estimator:
  // the plan's estimate and the progress line's time left (estimate::PlannedWork).
  virtual void PlanWork(const config::Experiment& ex, const plan::Cell& cell,
                        std::vector<estimate::Work>* out) const = 0;
  // A resumed run takes up the references its kept cells recorded.
  virtual void Resume(const run::ResumePlan& plan) { (void)plan; }
  // Runs phase `phase` (an index into Phases()) of the context's cell.
  virtual RunStatus Run(Context& ctx, size_t phase) = 0;
  // The run ends: any worker of its own is shut down.
  virtual void Finish() {}
};

}  // namespace pipette::workload
