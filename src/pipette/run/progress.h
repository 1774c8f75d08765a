// What the runner reports as it goes (run/runner.h); the console implementation prints progress
// with a time-left estimate. Never computes a figure.
#pragma once

#include <string>

#include "pipette/plan/plan.h"
#include "pipette/store/store.h"

namespace pipette::run {

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void CellStarted(const plan::Cell& cell, int n_cells, int worker_pid) = 0;
  // A phase of a cell (loading the model, one test, one quality workload) begins and ends; the
  // end carries the run's fraction done and the estimate of seconds left (negative: unknown).
  virtual void PhaseStarted(const plan::Cell& cell, int n_cells, const std::string& phase) = 0;
  virtual void PhaseFinished(const plan::Cell& cell, int n_cells, const std::string& phase,
                             double seconds, double fraction_done, double seconds_left) = 0;
  // After each request: what ran, and the estimate of seconds left (negative: unknown yet).
  virtual void Step(const plan::Cell& cell, int n_cells, const std::string& what,
                    double fraction_done, double seconds_left) = 0;
  virtual void CellFinished(const plan::Cell& cell, int n_cells, const store::CellRecord& rec) = 0;
};

}  // namespace pipette::run
