#include "pipette/compare/verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "pipette/stats/stats.h"

namespace pipette::compare {

std::string VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kBetter:
      return "better";
    case Verdict::kWorse:
      return "worse";
    case Verdict::kNoRealChange:
      return "no real change";
    case Verdict::kTooNoisy:
      return "too noisy to say";
  }
  return "?";
}

namespace {

// Better or worse as the direction says, for a change up (`up`) or down.
Verdict Way(bool up, Direction direction) {
  return up == (direction == Direction::kHigherIsBetter) ? Verdict::kBetter : Verdict::kWorse;
}

}  // namespace

RatioChange CompareRatio(std::span<const double> baseline, std::span<const double> candidate,
                         Direction direction, double threshold,
                         const stats::BootstrapOptions& options) {
  RatioChange c;
  c.baseline_n = baseline.size();
  c.candidate_n = candidate.size();
  if (baseline.empty() || candidate.empty()) {
    c.why = "a side has no samples";
    return c;
  }
  c.baseline_median = stats::Median(baseline);
  c.candidate_median = stats::Median(candidate);
  c.baseline_cv = stats::Cv(baseline);
  c.candidate_cv = stats::Cv(candidate);
  c.ratio = c.baseline_median != 0 ? c.candidate_median / c.baseline_median : 0;
  if (baseline.size() < kMinSamples || candidate.size() < kMinSamples) {
    c.why = fmt::format("fewer than {} samples a side ({} and {})", kMinSamples, baseline.size(),
                        candidate.size());
    return c;
  }
  c.interval = stats::BootstrapRatioOfMedians(baseline, candidate, options);
  if (!c.interval) {
    c.why = "the baseline's median is 0";
    return c;
  }
  const double noise = std::max(c.baseline_cv, c.candidate_cv);
  const double change = std::fabs(c.ratio - 1.0);
  const bool excludes = c.interval->low > 1.0 || c.interval->high < 1.0;
  if (excludes && change > noise) {
    c.verdict = Way(c.ratio > 1.0, direction);
    c.why = fmt::format(
        "the interval excludes 1 and the change ({:.1f}%) exceeds both sides' noise "
        "(CV up to {:.1f}%)",
        change * 100, noise * 100);
  } else if (!excludes && c.interval->low >= 1.0 - threshold &&
             c.interval->high <= 1.0 + threshold) {
    c.verdict = Verdict::kNoRealChange;
    c.why = fmt::format("the interval includes 1 and lies within ±{:g}%", threshold * 100);
  } else if (excludes) {
    c.why = fmt::format("the change ({:.1f}%) is within the sides' noise (CV up to {:.1f}%)",
                        change * 100, noise * 100);
  } else {
    c.why = fmt::format("the interval includes 1 but reaches past ±{:g}%", threshold * 100);
  }
  return c;
}

DifferenceChange CompareDifference(
    std::span<const double> baseline, std::span<const double> candidate,
    const std::function<double(std::span<const double>, std::span<const size_t>)>& statistic,
    Direction direction, double threshold, const stats::BootstrapOptions& options) {
  DifferenceChange c;
  if (baseline.size() != candidate.size() || baseline.empty()) {
    c.why = fmt::format("the sides do not hold the same units ({} and {})", baseline.size(),
                        candidate.size());
    return c;
  }
  c.units = baseline.size();
  std::vector<size_t> all(c.units);
  std::iota(all.begin(), all.end(), size_t{0});
  c.baseline = statistic(baseline, all);
  c.candidate = statistic(candidate, all);
  c.difference = c.candidate - c.baseline;
  if (c.units < kMinSamples) {
    c.why = fmt::format("fewer than {} units ({})", kMinSamples, c.units);
    return c;
  }
  c.interval = stats::PairedBootstrap(
      c.units,
      [&](std::span<const size_t> idx) {
        return statistic(candidate, idx) - statistic(baseline, idx);
      },
      options);
  if (!c.interval) {
    c.why = "the figure is not finite on some resample";
    return c;
  }
  const bool excludes = c.interval->low > 0.0 || c.interval->high < 0.0;
  if (excludes) {
    c.verdict = Way(c.difference > 0.0, direction);
    c.why = "the paired interval excludes 0";
  } else if (c.interval->low >= -threshold && c.interval->high <= threshold) {
    c.verdict = Verdict::kNoRealChange;
    c.why = fmt::format("the paired interval includes 0 and lies within ±{:g}", threshold);
  } else {
    c.why = fmt::format("the paired interval includes 0 but reaches past ±{:g}", threshold);
  }
  return c;
}

}  // namespace pipette::compare
