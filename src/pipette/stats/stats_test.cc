#include "pipette/stats/stats.h"

#include <gtest/gtest.h>

#include <vector>

namespace pipette::stats {
namespace {

TEST(Stats, MedianOddAndEven) {
  std::vector<double> odd{5, 1, 3};
  EXPECT_DOUBLE_EQ(Median(odd), 3);
  std::vector<double> even{4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(Median(even), 2.5);
  std::vector<double> one{7};
  EXPECT_DOUBLE_EQ(Median(one), 7);
}

TEST(Stats, MinMaxMean) {
  std::vector<double> xs{2, 8, -1, 3};
  EXPECT_DOUBLE_EQ(Min(xs), -1);
  EXPECT_DOUBLE_EQ(Max(xs), 8);
  EXPECT_DOUBLE_EQ(Mean(xs), 3);
}

TEST(Stats, SampleStddev) {
  // Known: {2,4,4,4,5,5,7,9} has population sd 2, sample sd sqrt(32/7).
  std::vector<double> xs{2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_NEAR(Stddev(xs), 2.1380899352993950, 1e-12);
  std::vector<double> one{3};
  EXPECT_DOUBLE_EQ(Stddev(one), 0);
}

TEST(Stats, CvAndNoisyFlag) {
  std::vector<double> steady{100, 101, 99, 100, 100};
  Summary s = Summarize(steady);
  EXPECT_NEAR(s.cv, 0.0070710678, 1e-9);
  EXPECT_FALSE(s.noisy);
  std::vector<double> jumpy{100, 120, 80, 100, 100};
  Summary j = Summarize(jumpy);
  EXPECT_NEAR(j.cv, 0.1414213562, 1e-9);
  EXPECT_TRUE(j.noisy);
  EXPECT_EQ(j.n, 5u);
  EXPECT_DOUBLE_EQ(j.median, 100);
  EXPECT_DOUBLE_EQ(j.min, 80);
  EXPECT_DOUBLE_EQ(j.max, 120);
}

TEST(Stats, PercentileLinearInterpolation) {
  // numpy.percentile([1,2,3,4,5,6,7,8,9,10], [50, 90, 99]) = 5.5, 9.1, 9.91
  std::vector<double> xs{10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  EXPECT_NEAR(Percentile(xs, 50), 5.5, 1e-12);
  EXPECT_NEAR(Percentile(xs, 90), 9.1, 1e-12);
  EXPECT_NEAR(Percentile(xs, 99), 9.91, 1e-12);
  EXPECT_DOUBLE_EQ(Percentile(xs, 0), 1);
  EXPECT_DOUBLE_EQ(Percentile(xs, 100), 10);
}

TEST(Stats, WilsonInterval) {
  // Reference values (statsmodels proportion_confint(method="wilson")):
  // 8/10 -> (0.4901625, 0.9433178); 0/10 -> (0, 0.2775328); 50/100 -> (0.4038315, 0.5961685).
  Interval a = Wilson(8, 10);
  EXPECT_NEAR(a.low, 0.4901625, 1e-6);
  EXPECT_NEAR(a.high, 0.9433178, 1e-6);
  Interval b = Wilson(0, 10);
  EXPECT_EQ(b.low, 0.0);
  EXPECT_EQ(Wilson(10, 10).high, 1.0);
  EXPECT_NEAR(b.high, 0.2775328, 1e-6);
  Interval c = Wilson(50, 100);
  EXPECT_NEAR(c.low, 0.4038315, 1e-6);
  EXPECT_NEAR(c.high, 0.5961685, 1e-6);
}

TEST(Stats, EmptySummary) {
  std::vector<double> none;
  Summary s = Summarize(none);
  EXPECT_EQ(s.n, 0u);
  EXPECT_FALSE(s.noisy);
}

}  // namespace
}  // namespace pipette::stats
