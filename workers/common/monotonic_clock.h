// The worker's clock for every timestamp it reports: steady_clock (CLOCK_MONOTONIC) in ns.
#pragma once

#include <chrono>
#include <cstdint>

namespace pipette::llama_worker {

inline int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace pipette::llama_worker
