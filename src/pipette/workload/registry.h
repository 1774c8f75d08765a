// Every workload Pipette runs, in the order a cell runs them (docs/architecture.md "Adding a
// workload"). A new workload is one folder under src/pipette/workload/ and one line in
// registry.cc.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "pipette/workload/workload.h"

namespace pipette::workload {

// A fresh instance of each, for one run.
std::vector<std::unique_ptr<Workload>> MakeWorkloads();

// Tokens a cell's context must hold at `depth`: the most any workload of the experiment needs.
int64_t ContextNeed(const config::Experiment& ex, int64_t depth);

}  // namespace pipette::workload
