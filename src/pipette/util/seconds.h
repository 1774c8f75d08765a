// Durations in seconds, the one way Pipette turns clock readings into seconds: between two
// nanosecond timestamps (a worker's clock, as stored in a sample) and since a steady-clock point.
#pragma once

#include <chrono>
#include <cstdint>

namespace pipette {

// Seconds from `t0_ns` to `t1_ns` (negative when t1 is earlier).
double SecondsBetween(int64_t t0_ns, int64_t t1_ns);
// Seconds from `t0` until now.
double SecondsSince(std::chrono::steady_clock::time_point t0);

}  // namespace pipette
