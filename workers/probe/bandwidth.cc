#include "probe/bandwidth.h"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

namespace pipette::probe {
namespace {

constexpr double kScalar = 0.5;  // keeps values bounded across passes (fixed point c = 2b)

enum class Kernel { kInit, kCopy, kTriad };

void RunKernel(Kernel kernel, double* __restrict a, double* __restrict b, double* __restrict c,
               size_t lo, size_t hi) {
  switch (kernel) {
    case Kernel::kInit:  // first touch by the thread that will use the pages (NUMA locality)
      for (size_t i = lo; i < hi; ++i) {
        a[i] = 1.0;
        b[i] = 2.0;
        c[i] = 0.0;
      }
      break;
    case Kernel::kCopy:
      for (size_t i = lo; i < hi; ++i) c[i] = a[i];
      break;
    case Kernel::kTriad:
      for (size_t i = lo; i < hi; ++i) a[i] = b[i] + kScalar * c[i];
      break;
  }
}

}  // namespace

BandwidthResult MeasureBandwidth(const BandwidthOptions& opts) {
  const int threads = opts.threads > 0
                          ? opts.threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int reps = std::max(1, opts.repetitions);
  const size_t bytes = opts.array_bytes;
  const size_t n = std::max(bytes / sizeof(double), static_cast<size_t>(threads));

  // Left uninitialized so the init pass, split like the timed passes, does the first touch.
  // (Transparent huge pages were tried: direct compaction stalls made the probe take seconds.)
  auto a = std::make_unique_for_overwrite<double[]>(n);
  auto b = std::make_unique_for_overwrite<double[]>(n);
  auto c = std::make_unique_for_overwrite<double[]>(n);

  std::vector<Kernel> schedule = {Kernel::kInit};
  for (int r = 0; r < reps + 1; ++r) {  // round 0 is the warm-up
    schedule.push_back(Kernel::kTriad);
    schedule.push_back(Kernel::kCopy);
  }
  std::vector<double> seconds(schedule.size(), 0.0);  // written by thread 0 only

  std::barrier sync(threads);
  auto worker = [&](int t) {
    const size_t lo = n * static_cast<size_t>(t) / static_cast<size_t>(threads);
    const size_t hi = n * static_cast<size_t>(t + 1) / static_cast<size_t>(threads);
    for (size_t p = 0; p < schedule.size(); ++p) {
      sync.arrive_and_wait();
      auto start = std::chrono::steady_clock::now();
      RunKernel(schedule[p], a.get(), b.get(), c.get(), lo, hi);
      sync.arrive_and_wait();
      if (t == 0) {
        seconds[p] =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
    }
  };
  {
    std::vector<std::jthread> pool;
    pool.reserve(static_cast<size_t>(threads - 1));
    try {
      for (int t = 1; t < threads; ++t) pool.emplace_back(worker, t);
    } catch (...) {
      // Release the workers already started (they finish with partial ranges), then report.
      for (int t = static_cast<int>(pool.size()); t < threads; ++t) sync.arrive_and_drop();
      throw;
    }
    worker(0);
  }
  // Keep the stores observable so no optimizer can treat the passes as dead.
  volatile double sink = a[n / 2] + c[n - 1];
  (void)sink;

  double best_triad = std::numeric_limits<double>::infinity();
  double best_copy = std::numeric_limits<double>::infinity();
  for (size_t p = 3; p < schedule.size(); ++p) {  // skip init and the warm-up round
    double& best = schedule[p] == Kernel::kTriad ? best_triad : best_copy;
    best = std::min(best, seconds[p]);
  }
  // Guard against a zero reading from a coarse clock on tiny arrays.
  constexpr double kMinSeconds = 1e-9;
  const double array_bytes = static_cast<double>(n * sizeof(double));
  BandwidthResult result;
  result.triad_bytes_per_s = 3 * array_bytes / std::max(best_triad, kMinSeconds);
  result.copy_bytes_per_s = 2 * array_bytes / std::max(best_copy, kMinSeconds);
  result.array_bytes = n * sizeof(double);
  result.threads = threads;
  result.repetitions = reps;
  return result;
}

}  // namespace pipette::probe
