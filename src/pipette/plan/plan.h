// Matrix expansion: an experiment becomes cells (the cross product of its dimensions), ordered
// so that a model loads as few times as possible.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "pipette/config/experiment.h"
#include "pipette/runtime/params.h"
#include "pipette/runtime/registry.h"
#include "pipette/util/result.h"

namespace pipette::plan {

struct Cell {
  int index = 0;  // position in run order, from 0
  config::ModelSpec model;
  config::RuntimeSpec runtime;
  config::DeviceSpec device;  // where it runs (the experiment's devices:; local by default)
  // The parameters of its runtime the experiment sets (and Pipette's own: n_ctx, depth) with
  // their resolved canonical value, in registry order. One not here is left to the runtime (or
  // is another runtime's): not sent, not in Key().
  runtime::CellParams params;
  // Short name for people: the model plus only the dimensions that vary in this plan.
  std::string label;

  // The value of `name`, "" when the cell does not hold it.
  const std::string& Param(const std::string& name) const;
  // Param(name) as an integer; 0 when the cell does not hold it (every cell holds Pipette's own
  // n_ctx and depth).
  int64_t IntParam(const std::string& name) const;
  // Param(name), or `fallback` when the experiment leaves it to the runtime.
  std::string ParamOr(const std::string& name, const std::string& fallback) const;
  bool HasParam(const std::string& name) const;
  // "model=...,runtime=...,threads=2,...", with ",device=NAME" on a device other than local —
  // unique within a run.
  std::string Key() const;
  // Cells with equal LoadKey can share one loaded model in one worker.
  std::string LoadKey(const runtime::ParamRegistry& registry) const;
};

// What the workloads of an experiment need of a cell's context at a depth: the most tokens any
// needs, and what needs them (for a message). Given by the caller: workload::PlanNeeds() outside
// tests. Both must be set (Expand refuses a plan without them).
struct ContextNeeds {
  std::function<int64_t(const config::Experiment&, int64_t depth)> tokens;
  std::function<std::string(const config::Experiment&, int64_t depth)> what;
};

// Expands the experiment. A cell holds only its runtime's parameters (and Pipette's own), so a
// parameter multiplies only the cells of the runtimes that define it. Parameters of load scope
// vary slowest, so consecutive cells share a loaded model; the last registry parameter varies
// fastest. Resolves n_ctx = 0 (auto), checks that every test fits the context and applies each
// runtime's cell rule (runtime/runtime.h), naming the experiment file on error. `runtimes` gives
// the parameters (its Params()) and the rules: runtime::Registry() outside tests; `needs` the
// context the tests need.
Result<std::vector<Cell>> Expand(const config::Experiment& ex,
                                 const runtime::RuntimeRegistry& runtimes,
                                 const ContextNeeds& needs);
// The devices slowest of all: every cell of the first device, then the next. A runtime that does
// not run on remote devices (runtime::Runtime::runs_on_devices) has no cells on them: LeftOut
// says which (device, runtime) pairs Expand leaves out, one line each, for the run to print.
std::vector<std::string> LeftOut(const config::Experiment& ex,
                                 const runtime::RuntimeRegistry& runtimes);

// Narrows a plan to the cells matching every `key=value` of `only` (comma-separated; keys:
// model, runtime, quant, device or any parameter), renumbering them. An unknown key or a value no
// cell has is an input error that says what exists. The cells of `reference` (the model others are
// compared with; "" for none) that match the terms other than model, quant and runtime are kept
// too (a parameter their runtime lacks does not count), first, when none of its cells would be.
Result<std::vector<Cell>> Narrow(const std::vector<Cell>& cells, const std::string& only,
                                 const runtime::ParamRegistry& registry,
                                 const std::string& reference = "");

}  // namespace pipette::plan
