// `pipette reproduce RUN`: a stored run's experiment run again on this device (the experiment as it
// was stored, the same models by SHA-256), and figure by figure whether it reproduced
// (reproduce/reproduce.h), with the environment differences that could explain a miss. Exit codes:
// 0 every figure reproduced, 1 some did not (or the run again failed), 2 bad input.
#pragma once

#include <cstdint>
#include <string>

#include "pipette/app/commands.h"
#include "pipette/device/device.h"

namespace pipette::app {

struct ReproduceArgs {
  int64_t run = 0;
  std::string store = "results/pipette.db";
  std::string format = "md";  // md | json
  std::string output;         // empty: standard output
  bool no_bandwidth = false;
  bool no_wait = false;
};

int Reproduce(const ReproduceArgs& args, const Paths& paths, device::Device& device);

}  // namespace pipette::app
