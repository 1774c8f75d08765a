// pipette-probe: what Pipette measures on a device that is not a runtime's work, run there as a
// program of its own (staged beside the worker on a remote device), so that its memory is the
// device's and never the controller's. One command today:
//
//   pipette-probe bandwidth [--array-bytes N] [--threads N] [--repetitions N]
//
// prints one JSON line {"triad_bytes_per_s":..,"copy_bytes_per_s":..,"array_bytes":..,
// "threads":..,"repetitions":..} (docs/metrics.md "memory bandwidth"). Bad arguments: a message
// on standard error and exit code 2; arrays that cannot be allocated: exit code 1.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "probe/bandwidth.h"

namespace pipette::probe {

// The options of `bandwidth` from its arguments (argv after the command); false with `error`
// set for an unknown option, a missing or malformed value, or one out of range.
bool ParseBandwidthArgs(const std::vector<std::string>& args, BandwidthOptions* opts,
                        std::string* error);

// The result as the JSON line the controller reads (numbers at full precision).
std::string BandwidthJson(const BandwidthResult& r);

// The whole program on `args` (argv without the program's name): its exit code.
int ProbeMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace pipette::probe
