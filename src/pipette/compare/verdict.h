// One figure of a baseline against a candidate (docs/metrics.md "Comparing two sets of results"):
// both sides' values, their ratio or difference, a bootstrap interval of the change, and a verdict.
// Pure functions over samples; compare.h pairs the cells and compare/view.h renders the result.
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

// The change of one figure. A speed or memory figure is compared as the ratio of the medians of
// independent repetitions (`of` kRatio, the interval of the ratio); a quality figure as the
// difference of a statistic over units both sides measured (kDifference, the paired interval of
// the difference).
struct Change {
  enum class Of { kRatio, kDifference } of = Of::kRatio;
  size_t baseline_n = 0, candidate_n = 0;    // samples a side (for a difference: units, both)
  double baseline = 0, candidate = 0;        // the medians, or the statistic over every unit
  std::optional<double> ratio;               // candidate / baseline; none for a baseline of 0
  double difference = 0;                     // candidate − baseline
  double baseline_cv = 0, candidate_cv = 0;  // kRatio: each side's coefficient of variation
  std::optional<stats::Interval> interval;   // of the ratio (kRatio) or the difference
  bool measured_once = false;  // a figure measured once a cell, compared as single values
  Verdict verdict = Verdict::kTooNoisy;
  std::string why;  // the rule that decided, in words
};

// Independent repetitions on each side, compared as the ratio of medians (candidate / baseline)
// with a bootstrap interval of it. `threshold`: the relative change still called no real change
// (0.03: ±3%). `measured_once`: a figure a cell measures once (peak RSS, a file's size, the KV
// cache's bytes): one value a side, called better or worse when it moved past the threshold.
Change CompareRatio(std::span<const double> baseline, std::span<const double> candidate,
                    Direction direction, double threshold,
                    const stats::BootstrapOptions& options = {}, bool measured_once = false);

// A quality figure over units measured on both sides (mc and gen items, ppl and kld chunks): the
// change candidate − baseline of a statistic, with a paired bootstrap interval over the units.
// `threshold`: the absolute change still called no real change (0.01: one point of accuracy).
// `statistic(values, indices)`: the figure over those units of one side (the mean, the geometric
// mean of chunk perplexities, ...). `baseline` and `candidate` hold one value per unit, in the
// same order.
Change CompareDifference(
    std::span<const double> baseline, std::span<const double> candidate,
    const std::function<double(std::span<const double>, std::span<const size_t>)>& statistic,
    Direction direction, double threshold, const stats::BootstrapOptions& options = {});

}  // namespace pipette::compare
