#include "pipette/stats/bootstrap.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace pipette::stats {
namespace {

TEST(Bootstrap, IdenticalSidesGiveAnIntervalAroundOne) {
  const std::vector<double> a = {10.0, 10.2, 9.9, 10.1, 10.0, 9.8, 10.3};
  auto ci = BootstrapRatioOfMedians(a, a);
  ASSERT_TRUE(ci.has_value());
  EXPECT_LE(ci->low, 1.0);
  EXPECT_GE(ci->high, 1.0);
  EXPECT_GT(ci->low, 0.97);
  EXPECT_LT(ci->high, 1.03);
}

TEST(Bootstrap, AClearlyFasterCandidateExcludesOne) {
  const std::vector<double> a = {10.0, 10.2, 9.9, 10.1, 10.0};
  const std::vector<double> b = {12.0, 12.1, 11.9, 12.2, 12.0};
  auto ci = BootstrapRatioOfMedians(a, b);
  ASSERT_TRUE(ci.has_value());
  EXPECT_GT(ci->low, 1.15);
  EXPECT_LT(ci->high, 1.25);
}

TEST(Bootstrap, TheSameSeedGivesTheSameIntervalAndAnotherSeedAnother) {
  const std::vector<double> a = {10.0, 11.0, 9.0, 10.5, 9.5, 12.0};
  const std::vector<double> b = {10.5, 11.5, 9.2, 10.0, 9.9, 12.5};
  auto one = BootstrapRatioOfMedians(a, b);
  auto two = BootstrapRatioOfMedians(a, b);
  ASSERT_TRUE(one && two);
  EXPECT_EQ(one->low, two->low);
  EXPECT_EQ(one->high, two->high);
  BootstrapOptions other;
  other.seed = 7;
  other.resamples = 200;
  auto three = BootstrapRatioOfMedians(a, b, other);
  ASSERT_TRUE(three.has_value());
  EXPECT_TRUE(three->low != one->low || three->high != one->high);
}

TEST(Bootstrap, NothingToResampleIsNoInterval) {
  const std::vector<double> a = {1.0};
  EXPECT_FALSE(BootstrapRatioOfMedians({}, a).has_value());
  EXPECT_FALSE(BootstrapRatioOfMedians(a, {}).has_value());
  const std::vector<double> zero = {0.0, 0.0};
  EXPECT_FALSE(BootstrapRatioOfMedians(zero, a).has_value());
  EXPECT_FALSE(PairedBootstrap(0, [](std::span<const size_t>) { return 0.0; }).has_value());
}

// Paired over items: the candidate answers item 3 right where the baseline did not, the rest
// alike; the accuracy difference's interval lies in [0, 1/4] (a resample holds item 3 0..4 times).
TEST(Bootstrap, APairedDifferenceOverItemsStaysWithinWhatTheItemsAllow) {
  const std::vector<double> base = {1, 1, 0, 0}, cand = {1, 1, 0, 1};
  auto ci = PairedBootstrap(base.size(), [&](std::span<const size_t> idx) {
    double d = 0;
    for (size_t i : idx) d += cand[i] - base[i];
    return d / double(idx.size());
  });
  ASSERT_TRUE(ci.has_value());
  EXPECT_GE(ci->low, 0.0);
  EXPECT_LE(ci->high, 1.0);
  EXPECT_GT(ci->high, 0.0);
  EXPECT_EQ(ci->low, 0.0);  // a third of the resamples leave item 3 out
  EXPECT_FALSE(PairedBootstrap(2, [](std::span<const size_t>) {
                 return std::numeric_limits<double>::infinity();
               }).has_value());
}

}  // namespace
}  // namespace pipette::stats
