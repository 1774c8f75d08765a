#include "pipette/stats/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace pipette::stats {
namespace {

// An index in [0, n) from the generator: std::mt19937_64's sequence is fixed by the standard (the
// distributions are not), so the same seed gives the same resamples on every platform. The modulo's
// bias is below n / 2^64.
size_t Draw(std::mt19937_64& rng, size_t n) { return static_cast<size_t>(rng() % n); }

Interval Ends(std::vector<double> values, double level) {
  const double tail = (1.0 - level) / 2.0 * 100.0;
  return {Percentile(values, tail), Percentile(values, 100.0 - tail)};
}

}  // namespace

std::optional<Interval> BootstrapRatioOfMedians(std::span<const double> baseline,
                                                std::span<const double> candidate,
                                                const BootstrapOptions& options) {
  if (baseline.empty() || candidate.empty() || options.resamples < 1) return std::nullopt;
  std::mt19937_64 rng(options.seed);
  std::vector<double> a(baseline.size()), b(candidate.size()), ratios;
  ratios.reserve(static_cast<size_t>(options.resamples));
  for (int r = 0; r < options.resamples; ++r) {
    for (double& x : a) x = baseline[Draw(rng, baseline.size())];
    for (double& x : b) x = candidate[Draw(rng, candidate.size())];
    const double base = Median(a);
    if (base == 0.0) return std::nullopt;
    ratios.push_back(Median(b) / base);
  }
  return Ends(std::move(ratios), options.level);
}

std::optional<Interval> PairedBootstrap(
    size_t n, const std::function<double(std::span<const size_t>)>& statistic,
    const BootstrapOptions& options) {
  if (n == 0 || options.resamples < 1) return std::nullopt;
  std::mt19937_64 rng(options.seed);
  std::vector<size_t> idx(n);
  std::vector<double> values;
  values.reserve(static_cast<size_t>(options.resamples));
  for (int r = 0; r < options.resamples; ++r) {
    for (size_t& i : idx) i = Draw(rng, n);
    const double v = statistic(idx);
    if (!std::isfinite(v)) return std::nullopt;
    values.push_back(v);
  }
  return Ends(std::move(values), options.level);
}

}  // namespace pipette::stats
