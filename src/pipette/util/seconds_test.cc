#include "pipette/util/seconds.h"

#include <gtest/gtest.h>

namespace pipette {
namespace {

TEST(Seconds, BetweenTwoNanosecondStamps) {
  EXPECT_DOUBLE_EQ(SecondsBetween(1'000'000'000, 3'500'000'000), 2.5);
  EXPECT_DOUBLE_EQ(SecondsBetween(2'000, 1'000), -1e-6);
}

TEST(Seconds, SinceAPointIsNotNegativeAndGrowsWithTheGap) {
  const auto now = std::chrono::steady_clock::now();
  EXPECT_GE(SecondsSince(now), 0.0);
  EXPECT_GE(SecondsSince(now - std::chrono::seconds(5)), 5.0);
}

}  // namespace
}  // namespace pipette
