// The worker's clock for every timestamp it reports (docs/protocol.md "Framing"): steady_clock
// (CLOCK_MONOTONIC) in nanoseconds.
#pragma once

#include <chrono>
#include <cstdint>

namespace pipette::worker_common {

inline int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace pipette::worker_common
