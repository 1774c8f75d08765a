// For tests: the speed workload alone, as a run's workloads (run::RunnerDeps::workloads), for a
// run of tests only.
#pragma once

#include <memory>
#include <vector>

#include "pipette/workload/speed/speed.h"

namespace pipette::workload {

inline std::vector<std::unique_ptr<Workload>> SpeedAlone() {
  std::vector<std::unique_ptr<Workload>> w;
  w.push_back(NewSpeed());
  return w;
}

}  // namespace pipette::workload
