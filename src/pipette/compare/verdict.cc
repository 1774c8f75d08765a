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

bool AllFinite(std::span<const double> v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

// What the bootstrap did when it drew fewer resamples than asked (stats::BootstrapResamples), for
// the change's `why`; "" when it drew them all.
std::string Resampled(const stats::BootstrapOptions& options, size_t per_resample) {
  const int used = stats::BootstrapResamples(options, per_resample);
  if (used >= options.resamples) return "";
  return fmt::format(" ({} resamples of the {} asked, to bound the work over {} values)", used,
                     options.resamples, per_resample);
}

}  // namespace

Change CompareRatio(std::span<const double> baseline, std::span<const double> candidate,
                    Direction direction, double threshold, const stats::BootstrapOptions& options,
                    bool measured_once) {
  Change c;
  c.of = Change::Of::kRatio;
  c.measured_once = measured_once;
  c.baseline_n = baseline.size();
  c.candidate_n = candidate.size();
  if (baseline.empty() || candidate.empty()) {
    c.why = "a side has no samples";
    return c;
  }
  if (!AllFinite(baseline) || !AllFinite(candidate)) {
    c.why = "a sample is not a finite number";
    return c;
  }
  c.baseline = stats::Median(baseline);
  c.candidate = stats::Median(candidate);
  c.difference = c.candidate - c.baseline;
  c.baseline_cv = stats::Cv(baseline);
  c.candidate_cv = stats::Cv(candidate);
  if (c.baseline != 0) c.ratio = c.candidate / c.baseline;
  if (measured_once && baseline.size() == 1 && candidate.size() == 1) {
    if (!c.ratio) {
      c.why = "the baseline is 0";
      return c;
    }
    const double change = *c.ratio - 1.0;
    if (std::fabs(change) <= threshold) {
      c.verdict = Verdict::kNoRealChange;
      c.why = fmt::format("measured once a side: the change ({:+.1f}%) is within ±{:g}%",
                          change * 100, threshold * 100);
    } else {
      c.verdict = Way(change > 0, direction);
      c.why = fmt::format("measured once a side: the change ({:+.1f}%) is past ±{:g}%",
                          change * 100, threshold * 100);
    }
    return c;
  }
  if (baseline.size() < kMinSamples || candidate.size() < kMinSamples) {
    c.why = fmt::format("fewer than {} samples a side ({} and {})", kMinSamples, baseline.size(),
                        candidate.size());
    return c;
  }
  c.interval = stats::BootstrapRatioOfMedians(baseline, candidate, options);
  if (!c.ratio || !c.interval) {
    c.interval.reset();
    c.why = "the baseline's median is 0";
    return c;
  }
  const std::string resampled = Resampled(options, baseline.size() + candidate.size());
  const double noise = std::max(c.baseline_cv, c.candidate_cv);
  const double change = std::fabs(*c.ratio - 1.0);
  const bool above = c.interval->low > 1.0, below = c.interval->high < 1.0;
  if ((above || below) && change > noise) {
    c.verdict = Way(above, direction);
    c.why = fmt::format(
        "the interval excludes 1 and the change ({:.1f}%) exceeds both sides' noise "
        "(CV up to {:.1f}%)",
        change * 100, noise * 100);
  } else if (!above && !below && c.interval->low >= 1.0 - threshold &&
             c.interval->high <= 1.0 + threshold) {
    c.verdict = Verdict::kNoRealChange;
    c.why = fmt::format("the interval includes 1 and lies within ±{:g}%", threshold * 100);
  } else if (above || below) {
    c.why = fmt::format("the change ({:.1f}%) is within the sides' noise (CV up to {:.1f}%)",
                        change * 100, noise * 100);
  } else {
    c.why = fmt::format("the interval includes 1 but reaches past ±{:g}%", threshold * 100);
  }
  c.why += resampled;
  return c;
}

Change CompareDifference(
    std::span<const double> baseline, std::span<const double> candidate,
    const std::function<double(std::span<const double>, std::span<const size_t>)>& statistic,
    Direction direction, double threshold, const stats::BootstrapOptions& options) {
  Change c;
  c.of = Change::Of::kDifference;
  c.baseline_n = baseline.size();
  c.candidate_n = candidate.size();
  if (baseline.size() != candidate.size() || baseline.empty()) {
    c.why = fmt::format("the sides do not hold the same units ({} and {})", baseline.size(),
                        candidate.size());
    return c;
  }
  if (!AllFinite(baseline) || !AllFinite(candidate)) {
    c.why = "a unit's value is not a finite number";
    return c;
  }
  std::vector<size_t> all(baseline.size());
  std::iota(all.begin(), all.end(), size_t{0});
  c.baseline = statistic(baseline, all);
  c.candidate = statistic(candidate, all);
  c.difference = c.candidate - c.baseline;
  if (c.baseline != 0) c.ratio = c.candidate / c.baseline;
  if (baseline.size() < kMinSamples) {
    c.why = fmt::format("fewer than {} units ({})", kMinSamples, baseline.size());
    return c;
  }
  c.interval = stats::PairedBootstrap(
      baseline.size(),
      [&](std::span<const size_t> idx) {
        return statistic(candidate, idx) - statistic(baseline, idx);
      },
      options);
  if (!c.interval) {
    c.why = "the figure is not finite on some resample";
    return c;
  }
  const bool above = c.interval->low > 0.0, below = c.interval->high < 0.0;
  if (above || below) {
    c.verdict = Way(above, direction);
    c.why = fmt::format("the paired interval over {} units excludes 0", baseline.size());
  } else if (c.interval->low >= -threshold && c.interval->high <= threshold) {
    c.verdict = Verdict::kNoRealChange;
    c.why = fmt::format("the paired interval includes 0 and lies within ±{:.4g}", threshold);
  } else {
    c.why = fmt::format("the paired interval includes 0 but reaches past ±{:.4g}", threshold);
  }
  c.why += Resampled(options, baseline.size());
  return c;
}

}  // namespace pipette::compare
