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

// The percentile interval of median(candidate*) / median(baseline*), each side resampled with
// replacement on its own (independent samples: repetitions of two cells). nullopt when a side is
// empty or a resampled baseline median is 0.
std::optional<Interval> BootstrapRatioOfMedians(std::span<const double> baseline,
                                                std::span<const double> candidate,
                                                const BootstrapOptions& options = {});

// The percentile interval of a paired statistic: `n` units measured on both sides (items, chunks)
// resampled with replacement as one set of indices, `statistic` computed over each resample (e.g.
// the candidate's accuracy minus the baseline's over those items). nullopt when n is 0 or the
// statistic is not finite on some resample.
std::optional<Interval> PairedBootstrap(
    size_t n, const std::function<double(std::span<const size_t>)>& statistic,
    const BootstrapOptions& options = {});

}  // namespace pipette::stats
