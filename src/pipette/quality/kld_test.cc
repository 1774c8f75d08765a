#include "pipette/quality/kld.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace pipette::quality {
namespace {

TEST(Kld, IdenticalDistributionsGiveExactlyZero) {
  const std::vector<double> ref = {std::log(0.5), std::log(0.3), std::log(0.1)};
  CoarseKl k = CoarseKlDivergence(ref, ref);
  EXPECT_EQ(k.kl, 0.0);  // exactly, not nearly
  EXPECT_NEAR(k.ref_tail, 0.1, 1e-12);
}

TEST(Kld, MatchesTheFullKlWhenTheTopKHoldsAllTheMass) {
  // P = (0.5, 0.5), Q = (0.9, 0.1): KL = 0.5 ln(0.5/0.9) + 0.5 ln(0.5/0.1).
  const std::vector<double> ref = {std::log(0.5), std::log(0.5)};
  const std::vector<double> test = {std::log(0.9), std::log(0.1)};
  const double expected = 0.5 * std::log(0.5 / 0.9) + 0.5 * std::log(0.5 / 0.1);
  CoarseKl k = CoarseKlDivergence(ref, test);
  EXPECT_NEAR(k.kl, expected, 1e-12);
  EXPECT_NEAR(k.ref_tail, 0.0, 1e-12);
}

TEST(Kld, TailBucketGivesALowerBound) {
  // Full P = (0.6, 0.2, 0.2), Q = (0.5, 0.1, 0.4); top-1 of P kept: buckets (0.6 | 0.4) vs
  // (0.5 | 0.5). Coarse KL = 0.6 ln(0.6/0.5) + 0.4 ln(0.4/0.5) <= full KL.
  const std::vector<double> ref = {std::log(0.6)};
  const std::vector<double> test = {std::log(0.5)};
  const double coarse = 0.6 * std::log(0.6 / 0.5) + 0.4 * std::log(0.4 / 0.5);
  const double full =
      0.6 * std::log(0.6 / 0.5) + 0.2 * std::log(0.2 / 0.1) + 0.2 * std::log(0.2 / 0.4);
  CoarseKl k = CoarseKlDivergence(ref, test);
  EXPECT_NEAR(k.kl, coarse, 1e-12);
  EXPECT_LE(k.kl, full);
  EXPECT_NEAR(k.ref_tail, 0.4, 1e-12);
}

TEST(Kld, ExactTailsFromTheRuntimeAreUsedWhenGiven) {
  // Same coarse problem as above, with the tails given as measured log masses.
  const std::vector<double> ref = {std::log(0.6)};
  const std::vector<double> test = {std::log(0.5)};
  CoarseKl k = CoarseKlDivergence(ref, test, std::log(0.4), std::log(0.5));
  EXPECT_NEAR(k.kl, 0.6 * std::log(0.6 / 0.5) + 0.4 * std::log(0.4 / 0.5), 1e-12);
  EXPECT_NEAR(k.ref_tail, 0.4, 1e-12);
  // Identical inputs: exactly 0 on this path too.
  EXPECT_EQ(CoarseKlDivergence(ref, ref, std::log(0.4), std::log(0.4)).kl, 0.0);
}

TEST(Kld, Summary) {
  std::vector<KldPosition> pos(4);
  for (int i = 0; i < 4; ++i) {
    pos[i].kl.kl = i;  // 0, 1, 2, 3
    pos[i].same_top1 = i != 3;
    pos[i].ref_correct_lp = std::log(0.5);
    pos[i].test_correct_lp = std::log(0.25);
  }
  KldSummary s = SummarizeKld(pos);
  EXPECT_EQ(s.n, 4);
  EXPECT_DOUBLE_EQ(s.mean, 1.5);
  EXPECT_DOUBLE_EQ(s.median, 1.5);
  EXPECT_DOUBLE_EQ(s.max, 3);
  EXPECT_NEAR(s.p99, 2.97, 1e-12);
  EXPECT_DOUBLE_EQ(s.top1_agree, 0.75);
  EXPECT_NEAR(s.rms_dp, 0.25, 1e-12);
  EXPECT_NEAR(s.ppl_ratio, 2.0, 1e-12);  // ppl 4 vs 2
}

}  // namespace
}  // namespace pipette::quality
