#include "pipette/stats/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

namespace pipette::stats {
namespace {

// An index in [0, n) from the generator: std::mt19937_64's sequence is fixed by the standard (the
// distributions are not), so the same seed gives the same resamples on every platform. The modulo's
// bias is below n / 2^64.
size_t Draw(std::mt19937_64& rng, size_t n) { return static_cast<size_t>(rng() % n); }

// One side's samples, resampled with replacement again and again, each resample's median found
// without sorting it: the samples are sorted once, each resample counts how many of its draws
// fell on each sorted place, and the median is read off the running count. The same draws and
// the same median as sorting the resample (Median: the two middle values interpolated as
// Percentile does), in O(n) with no comparison.
class Resampler {
 public:
  explicit Resampler(std::span<const double> values)
      : values_(values), counts_(values.size()), place_(values.size()) {
    std::vector<uint32_t> order(values.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t x, uint32_t y) { return values[x] < values[y]; });
    sorted_.reserve(values.size());
    for (size_t k = 0; k < order.size(); ++k) {
      place_[order[k]] = static_cast<uint32_t>(k);
      sorted_.push_back(values[order[k]]);
    }
  }

  // The median of one resample: n draws of the generator, as the plain algorithm makes them.
  double Median(std::mt19937_64& rng) {
    const size_t n = values_.size();
    std::fill(counts_.begin(), counts_.end(), 0u);
    for (size_t i = 0; i < n; ++i) ++counts_[place_[Draw(rng, n)]];
    const size_t lo = (n - 1) / 2, hi = n / 2;  // the middle ranks (equal for an odd n)
    size_t seen = 0, k = 0;
    while (seen + counts_[k] <= lo) seen += counts_[k++];
    const double low = sorted_[k];
    while (seen + counts_[k] <= hi) seen += counts_[k++];
    const double high = sorted_[k];
    return lo == hi ? low : low + (high - low) * 0.5;
  }

 private:
  std::span<const double> values_;
  std::vector<double> sorted_;
  std::vector<uint32_t> counts_;
  std::vector<uint32_t> place_;  // each sample's place among the sorted ones
};

Interval Ends(std::vector<double> values, double level) {
  const double tail = (1.0 - level) / 2.0 * 100.0;
  return {Percentile(values, tail), Percentile(values, 100.0 - tail)};
}

}  // namespace

int BootstrapResamples(const BootstrapOptions& options, size_t per_resample) {
  if (per_resample == 0 || options.resamples <= kMinBootstrapResamples) return options.resamples;
  const size_t fit = kMaxBootstrapDraws / per_resample;
  if (fit >= static_cast<size_t>(options.resamples)) return options.resamples;
  return static_cast<int>(std::max<size_t>(fit, kMinBootstrapResamples));
}

std::optional<Interval> BootstrapRatioOfMedians(std::span<const double> baseline,
                                                std::span<const double> candidate,
                                                const BootstrapOptions& options) {
  if (baseline.empty() || candidate.empty() || options.resamples < 1) return std::nullopt;
  const int resamples = BootstrapResamples(options, baseline.size() + candidate.size());
  std::mt19937_64 rng(options.seed);
  Resampler a(baseline), b(candidate);
  std::vector<double> ratios;
  ratios.reserve(static_cast<size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    const double base = a.Median(rng);
    const double cand = b.Median(rng);
    if (base == 0.0) return std::nullopt;
    ratios.push_back(cand / base);
  }
  return Ends(std::move(ratios), options.level);
}

std::optional<Interval> PairedBootstrap(
    size_t n, const std::function<double(std::span<const size_t>)>& statistic,
    const BootstrapOptions& options) {
  if (n == 0 || options.resamples < 1) return std::nullopt;
  const int resamples = BootstrapResamples(options, n);
  std::mt19937_64 rng(options.seed);
  std::vector<size_t> idx(n);
  std::vector<double> values;
  values.reserve(static_cast<size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    for (size_t& i : idx) i = Draw(rng, n);
    const double v = statistic(idx);
    if (!std::isfinite(v)) return std::nullopt;
    values.push_back(v);
  }
  return Ends(std::move(values), options.level);
}

}  // namespace pipette::stats
