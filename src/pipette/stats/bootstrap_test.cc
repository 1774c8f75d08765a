#include "pipette/stats/bootstrap.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
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

// The medians found in O(n) are the sorted ones: the interval is the one the plain algorithm
// (each resample sorted, Median) gives, to the bit, for even and odd sizes.
TEST(Bootstrap, TheLinearMedianGivesTheSortedMediansInterval) {
  const std::vector<double> a = {10.0, 11.0, 9.0, 10.5, 9.5, 12.0};
  const std::vector<double> b = {10.5, 11.5, 9.2, 10.0, 9.9, 12.5, 13.0};
  BootstrapOptions o;
  o.resamples = 500;
  std::mt19937_64 rng(o.seed);
  std::vector<double> x(a.size()), y(b.size()), ratios;
  for (int r = 0; r < o.resamples; ++r) {
    for (double& v : x) v = a[static_cast<size_t>(rng() % a.size())];
    for (double& v : y) v = b[static_cast<size_t>(rng() % b.size())];
    ratios.push_back(Median(y) / Median(x));
  }
  auto ci = BootstrapRatioOfMedians(a, b, o);
  ASSERT_TRUE(ci.has_value());
  EXPECT_EQ(ci->low, Percentile(ratios, 2.5));
  EXPECT_EQ(ci->high, Percentile(ratios, 97.5));
}

// 200,000 samples a side (repetitions allow 100,000, a figure per token more): the work is
// bounded by drawing fewer resamples, the interval is still right (the candidate 10% faster in
// every sample, shuffled) and the same for the seed.
TEST(Bootstrap, AHugeFigureIsResampledWithinTheBoundAndStaysRight) {
  const size_t n = 200000;
  std::vector<double> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = 100.0 + double(i % 1000) / 100.0;
    b[(i * 7919) % n] = a[i] * 1.1;  // 7919 is prime, so this is a permutation
  }
  BootstrapOptions o;
  EXPECT_EQ(BootstrapResamples(o, 2 * n), kMinBootstrapResamples);
  EXPECT_EQ(BootstrapResamples(o, 10), o.resamples);  // small figures: every resample asked
  EXPECT_EQ(BootstrapResamples(o, 20000), 5000);
  auto ci = BootstrapRatioOfMedians(a, b, o);
  ASSERT_TRUE(ci.has_value());
  EXPECT_LE(ci->low, 1.1 + 1e-9);
  EXPECT_GE(ci->high, 1.1 - 1e-9);
  EXPECT_GT(ci->low, 1.09);
  EXPECT_LT(ci->high, 1.11);
  auto again = BootstrapRatioOfMedians(a, b, o);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(ci->low, again->low);
  EXPECT_EQ(ci->high, again->high);
  // A paired statistic over as many units is bounded alike.
  size_t calls = 0;
  auto paired = PairedBootstrap(40000, [&](std::span<const size_t>) {
    ++calls;
    return 0.0;
  });
  ASSERT_TRUE(paired.has_value());
  EXPECT_EQ(calls, size_t(2500));  // 10^8 draws over 40,000 units
}

}  // namespace
}  // namespace pipette::stats
