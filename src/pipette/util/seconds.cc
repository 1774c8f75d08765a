#include "pipette/util/seconds.h"

namespace pipette {

double SecondsBetween(int64_t t0_ns, int64_t t1_ns) { return double(t1_ns - t0_ns) / 1e9; }

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace pipette
