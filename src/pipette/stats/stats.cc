#include "pipette/stats/stats.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

namespace pipette::stats {

double Mean(std::span<const double> xs) {
  if (xs.empty()) return 0.0;
  return std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(xs.size());
}

double Median(std::span<const double> xs) { return Percentile(xs, 50.0); }

double Min(std::span<const double> xs) {
  assert(!xs.empty());
  return *std::min_element(xs.begin(), xs.end());
}

double Max(std::span<const double> xs) {
  assert(!xs.empty());
  return *std::max_element(xs.begin(), xs.end());
}

double Stddev(std::span<const double> xs) {
  if (xs.size() < 2) return 0.0;
  const double m = Mean(xs);
  double ss = 0.0;
  for (double x : xs) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(xs.size() - 1));
}

double Cv(std::span<const double> xs) {
  const double m = Mean(xs);
  if (xs.size() < 2 || m == 0.0) return 0.0;
  return Stddev(xs) / std::fabs(m);
}

double Percentile(std::span<const double> xs, double p) {
  assert(!xs.empty());
  std::vector<double> s(xs.begin(), xs.end());
  std::sort(s.begin(), s.end());
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(s.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, s.size() - 1);
  const double frac = rank - static_cast<double>(lo);
  return s[lo] + (s[hi] - s[lo]) * frac;
}

Summary Summarize(std::span<const double> xs) {
  Summary out;
  out.n = xs.size();
  if (xs.empty()) return out;
  out.median = Median(xs);
  out.min = Min(xs);
  out.max = Max(xs);
  out.mean = Mean(xs);
  out.stddev = Stddev(xs);
  out.cv = Cv(xs);
  out.noisy = out.cv > kNoisyCv;
  return out;
}

Interval Wilson(int64_t successes, int64_t n, double z) {
  if (n <= 0) return {0, 0};
  const double nn = static_cast<double>(n);
  const double p = static_cast<double>(successes) / nn;
  const double z2 = z * z;
  const double center = (p + z2 / (2 * nn)) / (1 + z2 / nn);
  const double half = z / (1 + z2 / nn) * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));
  // At the extremes the bound is exact: no rounding residue (1e-17 instead of 0).
  return {successes == 0 ? 0.0 : std::max(0.0, center - half),
          successes == n ? 1.0 : std::min(1.0, center + half)};
}

}  // namespace pipette::stats
