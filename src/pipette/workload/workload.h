// A workload: one kind of measurement a cell runs after its model is loaded and its context made
// (the speed tests, ppl, kld, mc, gen). The runner knows none by name: it asks each registered
// workload (registry.h) which phases the experiment gives it and which ops each needs, plans the
// time-left estimate with it, and runs its phases in order. docs/architecture.md "Adding a
// workload".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipette/config/experiment.h"
#include "pipette/estimate/estimator.h"
#include "pipette/estimate/history.h"
#include "pipette/metrics/derive.h"
#include "pipette/metrics/headline.h"
#include "pipette/store/store.h"
#include "pipette/util/result.h"
#include "pipette/workload/context.h"
#include "pipette/workload/resume.h"

namespace pipette::workload {

// One phase of a cell: announced to the progress sink, run by Workload::Run. `ops`: the protocol
// ops it sends; a runtime whose worker serves not all of them gets the phase recorded as n/a.
struct Phase {
  std::string name;
  std::vector<std::string> ops;
};

// One instance serves one run: what it keeps between cells (a dataset read once, a reference
// distribution) are its members.
class Workload : public metrics::RowDeriver {
 public:
  // The phases the experiment asks of this workload, in order; none: it does not run.
  virtual std::vector<Phase> Phases(const config::Experiment& ex) const = 0;
  // Tokens a cell's context must hold for this workload with the cell's `depth` (0: none).
  virtual int64_t ContextNeed(const config::Experiment& ex, int64_t depth) const = 0;
  // What needs that many tokens, for a message that the context is too small ("the mc item at
  // data.jsonl:3 (5120 bytes)"); "" says only the workload's name.
  virtual std::string ContextNeedWhat(const config::Experiment& ex, int64_t depth) const {
    (void)ex, (void)depth;
    return "";
  }
  // Appends the work it plans for `cell` (estimate/estimator.h), for the one time estimator:
  // the plan's estimate and the progress line's time left (workload::PlannedWork).
  virtual void PlanWork(const config::Experiment& ex, const plan::Cell& cell,
                        std::vector<estimate::Work>* out) const = 0;
  // Name, Timed, Derive, ReadsOtherCells and RowsCacheable: metrics::RowDeriver, what the
  // derivation of a run's rows asks of it.
  // Its headline figures: the summary column and `report --vary` column its rows fill (none: its
  // figures are only in the results tables).
  virtual metrics::Headlines Headlines() const { return {}; }
  // Resuming a stored run: what this workload takes up from the cells kept (the references they
  // recorded), read from the store; null when nothing. An input error when the cells to measure
  // need a kept reference that cannot be reused.
  virtual Result<nlohmann::json> ResumeState(store::Store& store, const config::Experiment& ex,
                                             const ResumeInput& in) const {
    (void)store, (void)ex, (void)in;
    return nlohmann::json();
  }
  // A resumed run hands it what its ResumeState read (never null).
  virtual void Resume(const nlohmann::json& state) { (void)state; }
  // Whether its phases measure repetitions that `run --interleave` spreads over the visits of a
  // cell (Context::CurrentVisit: one measured repetition a visit, after the warm-ups). The other
  // workloads run at a cell's first visit only.
  virtual bool Interleaves() const { return false; }
  // Runs phase `phase` (an index into Phases()) of the context's cell.
  virtual RunStatus Run(Context& ctx, size_t phase) = 0;
  // The run ends: any worker of its own is shut down.
  virtual void Finish() {}
};

}  // namespace pipette::workload
