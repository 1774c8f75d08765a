// Every workload Pipette runs, in the order a cell runs them (docs/architecture.md "Adding a
// workload"). A new workload is one folder under src/pipette/workload/ and one line in
// registry.cc.
#pragma once

#include <memory>
#include <vector>

#include "pipette/workload/workload.h"

namespace pipette::workload {

// A fresh instance of each, for one run.
std::vector<std::unique_ptr<Workload>> MakeWorkloads();

}  // namespace pipette::workload
