// One figure of a baseline against a candidate (docs/metrics.md "Comparing two sets of results"):
// both medians, their ratio, a bootstrap interval of the change, and a verdict. Pure functions over
// samples; compare.h pairs the cells and report formats render the result.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>

#include "pipette/stats/bootstrap.h"

namespace pipette::compare {

// Which way a figure gets better.
enum class Direction { kHigherIsBetter, kLowerIsBetter };

enum class Verdict {
  kBetter,        // the interval excludes no change and the change exceeds both sides' noise
  kWorse,         // likewise, the other way
  kNoRealChange,  // the interval includes no change and lies within the threshold
  kTooNoisy,      // anything else, or fewer than kMinSamples a side
};
inline constexpr size_t kMinSamples = 3;
std::string VerdictName(Verdict v);  // "better", "worse", "no real change", "too noisy to say"

// A speed or memory figure: independent repetitions on each side, compared as the ratio of medians
// (candidate / baseline) with a bootstrap interval of it. `threshold`: the relative change still
// called no real change (0.03: ±3%).
struct RatioChange {
  size_t baseline_n = 0, candidate_n = 0;
  double baseline_median = 0, candidate_median = 0;
  double ratio = 0;  // candidate / baseline; 0 when the baseline's median is 0
  double baseline_cv = 0, candidate_cv = 0;
  std::optional<stats::Interval> interval;  // of the ratio
  Verdict verdict = Verdict::kTooNoisy;
  std::string why;  // the rule that decided, in words
};
RatioChange CompareRatio(std::span<const double> baseline, std::span<const double> candidate,
                         Direction direction, double threshold,
                         const stats::BootstrapOptions& options = {});

// A quality figure over units measured on both sides (mc and gen items, ppl and kld chunks): the
// change candidate − baseline of a statistic, with a paired bootstrap interval over the units.
// `threshold`: the absolute change still called no real change (0.01: one point of accuracy).
struct DifferenceChange {
  size_t units = 0;
  double baseline = 0, candidate = 0;  // the statistic over every unit
  double difference = 0;               // candidate − baseline
  std::optional<stats::Interval> interval;
  Verdict verdict = Verdict::kTooNoisy;
  std::string why;
};
// `statistic(values, indices)`: the figure over those units of one side (the mean, exp of the mean
// NLL for ppl, ...). `baseline` and `candidate` hold one value per unit, in the same order.
DifferenceChange CompareDifference(
    std::span<const double> baseline, std::span<const double> candidate,
    const std::function<double(std::span<const double>, std::span<const size_t>)>& statistic,
    Direction direction, double threshold, const stats::BootstrapOptions& options = {});

}  // namespace pipette::compare
