#include "pipette/compare/verdict.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace pipette::compare {
namespace {

using V = std::vector<double>;

TEST(CompareRatio, IdenticalSamplesAreNoRealChange) {
  const V a = {50.1, 49.8, 50.3, 50.0, 49.9, 50.2};
  const Change c = CompareRatio(a, a, Direction::kHigherIsBetter, 0.03);
  EXPECT_EQ(c.verdict, Verdict::kNoRealChange) << c.why;
  EXPECT_DOUBLE_EQ(c.ratio.value(), 1.0);
  ASSERT_TRUE(c.interval.has_value());
  EXPECT_LE(c.interval->low, 1.0);
  EXPECT_GE(c.interval->high, 1.0);
}

TEST(CompareRatio, AClearlyFasterCandidateIsBetterAndAClearlySlowerOneWorse) {
  const V base = {50.1, 49.8, 50.3, 50.0, 49.9};
  const V fast = {60.2, 59.9, 60.1, 60.4, 60.0};
  const Change up = CompareRatio(base, fast, Direction::kHigherIsBetter, 0.03);
  EXPECT_EQ(up.verdict, Verdict::kBetter) << up.why;
  EXPECT_NEAR(up.ratio.value(), 60.1 / 50.0, 1e-12);
  ASSERT_TRUE(up.interval.has_value());
  EXPECT_GT(up.interval->low, 1.0);
  // The same numbers as times (lower is better): the candidate is worse.
  EXPECT_EQ(CompareRatio(base, fast, Direction::kLowerIsBetter, 0.03).verdict, Verdict::kWorse);
  EXPECT_EQ(CompareRatio(fast, base, Direction::kHigherIsBetter, 0.03).verdict, Verdict::kWorse);
}

TEST(CompareRatio, AChangeWithinTheNoiseIsTooNoisyToSay) {
  // Medians 10 and 10.5 (+5%), but each side varies by about 20%.
  const V a = {8.0, 10.0, 12.0, 10.0, 7.5, 12.5, 10.0};
  const V b = {8.5, 10.5, 12.5, 10.5, 8.0, 13.0, 10.5};
  const Change c = CompareRatio(a, b, Direction::kHigherIsBetter, 0.03);
  EXPECT_EQ(c.verdict, Verdict::kTooNoisy) << c.why;
  EXPECT_GT(c.baseline_cv, 0.1);
}

TEST(CompareRatio, FewerThanThreeSamplesASideIsTooNoisyToSay) {
  const V two = {50.0, 50.1};
  const V five = {60.0, 60.1, 60.2, 59.9, 60.0};
  const Change c = CompareRatio(two, five, Direction::kHigherIsBetter, 0.03);
  EXPECT_EQ(c.verdict, Verdict::kTooNoisy);
  EXPECT_EQ(c.why, "fewer than 3 samples a side (2 and 5)");
  EXPECT_FALSE(c.interval.has_value());
  EXPECT_NEAR(c.ratio.value(), 60.0 / 50.05, 1e-12);  // the medians are still given
}

TEST(CompareRatio, AnIntervalPastTheThresholdIsNotNoRealChange) {
  const V a = {10.0, 10.4, 9.6, 10.2, 9.8};
  const V b = {10.1, 10.5, 9.5, 10.0, 9.9};
  EXPECT_EQ(CompareRatio(a, b, Direction::kHigherIsBetter, 0.10).verdict, Verdict::kNoRealChange);
  EXPECT_EQ(CompareRatio(a, b, Direction::kHigherIsBetter, 0.001).verdict, Verdict::kTooNoisy);
}

TEST(CompareRatio, AFigureMeasuredOnceIsComparedAsSingleValues) {
  const V a = {1000.0}, same = {1010.0}, more = {1100.0};
  const Change within = CompareRatio(a, same, Direction::kLowerIsBetter, 0.05, {}, true);
  EXPECT_EQ(within.verdict, Verdict::kNoRealChange) << within.why;
  EXPECT_FALSE(within.interval.has_value());
  const Change past = CompareRatio(a, more, Direction::kLowerIsBetter, 0.05, {}, true);
  EXPECT_EQ(past.verdict, Verdict::kWorse) << past.why;
  EXPECT_EQ(past.why, "measured once a side: the change (+10.0%) is past ±5%");
  // A figure that is repeated is never decided on one sample.
  EXPECT_EQ(CompareRatio(a, more, Direction::kLowerIsBetter, 0.05).verdict, Verdict::kTooNoisy);
}

TEST(CompareRatio, AZeroBaselineHasNoRatioAndANonFiniteSampleNoVerdict) {
  const V zero = {0.0, 0.0, 0.0}, some = {1.0, 1.0, 1.0};
  const Change z = CompareRatio(zero, some, Direction::kLowerIsBetter, 0.03);
  EXPECT_FALSE(z.ratio.has_value());
  EXPECT_EQ(z.verdict, Verdict::kTooNoisy);
  EXPECT_DOUBLE_EQ(z.difference, 1.0);
  const V nan = {1.0, std::nan(""), 1.0};
  const Change n = CompareRatio(some, nan, Direction::kLowerIsBetter, 0.03);
  EXPECT_EQ(n.verdict, Verdict::kTooNoisy);
  EXPECT_EQ(n.why, "a sample is not a finite number");
}

double Mean(std::span<const double> v, std::span<const size_t> idx) {
  double s = 0;
  for (size_t i : idx) s += v[i];
  return s / double(idx.size());
}

TEST(CompareDifference, PairedItemsGiveTheAccuracyChangeAndItsVerdict) {
  // 40 items: the candidate gets 10 more right and none wrong that the baseline got right.
  V base(40, 0.0), cand(40, 0.0);
  for (int i = 0; i < 20; ++i) base[i] = cand[i] = 1.0;
  for (int i = 20; i < 30; ++i) cand[i] = 1.0;
  const Change up = CompareDifference(base, cand, Mean, Direction::kHigherIsBetter, 0.01);
  EXPECT_EQ(up.verdict, Verdict::kBetter) << up.why;
  EXPECT_DOUBLE_EQ(up.difference, 0.25);
  EXPECT_DOUBLE_EQ(up.baseline, 0.5);
  // The same items, identical: no real change; a lower-is-better figure going up: worse.
  EXPECT_EQ(CompareDifference(base, base, Mean, Direction::kHigherIsBetter, 0.01).verdict,
            Verdict::kNoRealChange);
  EXPECT_EQ(CompareDifference(base, cand, Mean, Direction::kLowerIsBetter, 0.01).verdict,
            Verdict::kWorse);
  // Units that do not pair are no comparison.
  const V short_side = {1.0};
  EXPECT_EQ(CompareDifference(base, short_side, Mean, Direction::kHigherIsBetter, 0.01).verdict,
            Verdict::kTooNoisy);
}

TEST(CompareDifference, ChangesThatCancelOutAreTooNoisyUnderATightThreshold) {
  // One item gained, one lost, of 6: the difference is 0, its interval wide.
  const V base = {1, 1, 1, 0, 0, 0}, cand = {1, 1, 0, 1, 0, 0};
  const Change c = CompareDifference(base, cand, Mean, Direction::kHigherIsBetter, 0.01);
  EXPECT_DOUBLE_EQ(c.difference, 0.0);
  EXPECT_EQ(c.verdict, Verdict::kTooNoisy) << c.why;
}

// A figure of many samples is resampled fewer times than asked, within the bootstrap's bound,
// and the change says so.
TEST(CompareRatio, FewerResamplesOverManySamplesAreSaid) {
  std::vector<double> a(30000), b(30000);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = 50.0 + double(i % 10) / 10.0;
    b[i] = a[i];
  }
  const Change c = CompareRatio(a, b, Direction::kHigherIsBetter, 0.03);
  EXPECT_EQ(c.verdict, Verdict::kNoRealChange);
  EXPECT_NE(c.why.find("(1666 resamples of the 10000 asked, to bound the work over 60000 values)"),
            std::string::npos)
      << c.why;
}

}  // namespace
}  // namespace pipette::compare
