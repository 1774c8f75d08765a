// The bootstrap (docs/metrics.md "Comparing two sets of results"): intervals of a change between a
// baseline and a candidate by resampling what was measured, with a fixed, recorded seed so that a
// comparison gives the same interval every time it is made. Pure functions, tested on literal
// vectors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "pipette/stats/stats.h"

namespace pipette::stats {

struct BootstrapOptions {
  int resamples = 10000;
  uint64_t seed = 20261204;  // recorded with every comparison
  double level = 0.95;  // the interval's coverage: its ends are the 2.5th and 97.5th percentiles
};

// The work a bootstrap may do: resamples × the values each resample draws. Past it, fewer
// resamples are drawn (never fewer than kMinBootstrapResamples), so that a figure of hundreds of
// thousands of samples answers in seconds; the interval stays the same for a seed.
inline constexpr size_t kMaxBootstrapDraws = 100'000'000;
inline constexpr int kMinBootstrapResamples = 1000;
// The resamples a bootstrap drawing `per_resample` values each time makes: options.resamples, or
// fewer where that would draw more than kMaxBootstrapDraws values.
int BootstrapResamples(const BootstrapOptions& options, size_t per_resample);

// The percentile interval of median(candidate*) / median(baseline*), each side resampled with
// replacement on its own (independent samples: repetitions of two cells), BootstrapResamples
// times; each median in O(n). nullopt when a side is empty or a resampled baseline median is 0.
std::optional<Interval> BootstrapRatioOfMedians(std::span<const double> baseline,
                                                std::span<const double> candidate,
                                                const BootstrapOptions& options = {});

// The percentile interval of a paired statistic: `n` units measured on both sides (items, chunks)
// resampled with replacement as one set of indices, `statistic` computed over each resample (e.g.
// the candidate's accuracy minus the baseline's over those items), BootstrapResamples times.
// nullopt when n is 0 or the statistic is not finite on some resample.
std::optional<Interval> PairedBootstrap(
    size_t n, const std::function<double(std::span<const size_t>)>& statistic,
    const BootstrapOptions& options = {});

}  // namespace pipette::stats
