#include "pipette/stats/pareto.h"

#include <gtest/gtest.h>

namespace pipette::stats {
namespace {

TEST(Pareto, KeepsThePointsNothingBeats) {
  // (speed, quality): c is beaten by b in both; d ties a on speed and is worse on quality.
  const std::vector<std::vector<double>> p = {{10, 5}, {20, 3}, {15, 2}, {10, 4}, {30, 1}};
  EXPECT_EQ(ParetoOptimal(p), (std::vector<bool>{true, true, false, false, true}));
}

TEST(Pareto, EqualPointsAreBothOptimalAndEmptyIsEmpty) {
  EXPECT_EQ(ParetoOptimal({{1, 1}, {1, 1}}), (std::vector<bool>{true, true}));
  EXPECT_TRUE(ParetoOptimal({}).empty());
  EXPECT_EQ(ParetoOptimal({{3}}), (std::vector<bool>{true}));
}

}  // namespace
}  // namespace pipette::stats
