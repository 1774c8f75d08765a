// Statistics over repeated measurements: small pure functions, tested on literal vectors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace pipette::stats {

// CV above this marks a figure `noisy` (docs/metrics.md).
inline constexpr double kNoisyCv = 0.05;

double Mean(std::span<const double> xs);
// Median; the mean of the two middle values for an even count. Requires a non-empty input.
double Median(std::span<const double> xs);
double Min(std::span<const double> xs);
double Max(std::span<const double> xs);
// Sample standard deviation (n - 1 in the denominator); 0 for fewer than two values.
double Stddev(std::span<const double> xs);
// Coefficient of variation: stddev / mean; 0 when the mean is 0 or fewer than two values.
double Cv(std::span<const double> xs);
// Percentile p in [0, 100] with linear interpolation between closest ranks (numpy's default).
double Percentile(std::span<const double> xs, double p);

struct Summary {
  size_t n = 0;
  double median = 0, min = 0, max = 0, mean = 0, stddev = 0, cv = 0;
  bool noisy = false;  // cv > kNoisyCv
};
// All of the above at once; n == 0 gives an all-zero summary.
Summary Summarize(std::span<const double> xs);

// 95% (z = 1.96) Wilson score interval for a proportion of `successes` out of `n`.
struct Interval {
  double low = 0, high = 0;
};
Interval Wilson(int64_t successes, int64_t n, double z = 1.959963984540054);

}  // namespace pipette::stats
