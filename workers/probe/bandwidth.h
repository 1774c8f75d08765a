// The memory-bandwidth kernel of pipette-probe: a STREAM-like copy/triad over arrays larger than
// the last-level cache, run on the device (not in the controller, whose memory it would fill).
// Its triad figure is the "measured memory bandwidth" that bw_util divides by (docs/metrics.md).
#pragma once

#include <cstddef>

namespace pipette::probe {

struct BandwidthResult {
  double triad_bytes_per_s = 0;  // best pass of a[i] = b[i] + s*c[i], counting 3 arrays of traffic
  double copy_bytes_per_s = 0;   // best pass of c[i] = a[i], counting 2 arrays of traffic
  size_t array_bytes = 0;        // bytes of each of the 3 arrays
  int threads = 0;
  int repetitions = 0;
};

struct BandwidthOptions {
  size_t array_bytes = 64 << 20;  // bytes per array (the controller sizes it: DefaultArrayBytes)
  int threads = 0;                // 0 = std::thread::hardware_concurrency()
  int repetitions = 5;            // timed passes per kernel, after one untimed warm-up pass of each
};

// Runs the probe. Blocks for roughly (1 + repetitions) * 5 array sweeps plus the first touch
// (about 0.5-1 s with defaults on a 2-core VM). Throws std::bad_alloc when the arrays cannot be
// allocated and std::system_error when the threads cannot be started.
BandwidthResult MeasureBandwidth(const BandwidthOptions& opts = {});

}  // namespace pipette::probe
