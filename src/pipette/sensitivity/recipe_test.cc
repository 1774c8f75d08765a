#include "pipette/sensitivity/recipe.h"

#include <gtest/gtest.h>

namespace pipette::sensitivity {
namespace {

std::vector<GroupResult> Groups() {
  return {{"layer 0", "blk\\.0\\..*", 0.010, 1000},  // 1e-5 per byte
          {"layer 1", "blk\\.1\\..*", 0.001, 1000},  // 1e-6 per byte: cheapest
          {"layer 2", "blk\\.2\\..*", 0.004, 2000},  // 2e-6 per byte
          {"embeddings", "token_embd", 0.050, 500},  // 1e-4 per byte: dearest
          {"nothing", "x", 0.0, 0}};
}

TEST(Recipe, RanksByDamagePerByteSaved) {
  const auto ranked = RankByCost(Groups());
  ASSERT_EQ(ranked.size(), 5u);
  EXPECT_EQ(ranked[0].name, "layer 1");
  EXPECT_EQ(ranked[1].name, "layer 2");
  EXPECT_EQ(ranked[2].name, "layer 0");
  EXPECT_EQ(ranked[3].name, "embeddings");
  EXPECT_EQ(ranked[4].name, "nothing");  // saves nothing: last
}

TEST(Recipe, SizeBudgetTakesCheapestGroupsUntilItFits) {
  const Recipe r = ChooseRecipe(Groups(), 10000, {7000, std::nullopt});
  ASSERT_EQ(r.low, (std::vector<std::string>{"layer 1", "layer 2"}));
  EXPECT_EQ(r.predicted_size, 7000);
  EXPECT_DOUBLE_EQ(r.predicted_kld, 0.005);
  EXPECT_TRUE(r.meets_budget);
}

TEST(Recipe, KldBudgetTakesGroupsWhileTheSumStaysWithin) {
  const Recipe r = ChooseRecipe(Groups(), 10000, {std::nullopt, 0.012});
  ASSERT_EQ(r.low, (std::vector<std::string>{"layer 1", "layer 2"}));
  EXPECT_DOUBLE_EQ(r.predicted_kld, 0.005);
  EXPECT_EQ(r.predicted_size, 7000);
  EXPECT_TRUE(r.meets_budget);
  const Recipe all = ChooseRecipe(Groups(), 10000, {std::nullopt, 1.0});
  EXPECT_EQ(all.low.size(), 4u);  // never the group that saves nothing
  EXPECT_EQ(all.predicted_size, 5500);
}

TEST(Recipe, UnreachableSizeSaysSo) {
  const Recipe r = ChooseRecipe(Groups(), 10000, {1000, std::nullopt});
  EXPECT_EQ(r.low.size(), 4u);
  EXPECT_EQ(r.predicted_size, 5500);
  EXPECT_FALSE(r.meets_budget);
}

TEST(Recipe, BothBudgetsStopOnceTheSizeFits) {
  const Recipe r = ChooseRecipe(Groups(), 10000, {9000, 1.0});
  EXPECT_EQ(r.low, (std::vector<std::string>{"layer 1"}));  // no more than the size needs
  EXPECT_TRUE(r.meets_budget);
}

TEST(Recipe, BothBudgetsStopAtTheKldLimit) {
  const Recipe r = ChooseRecipe(Groups(), 10000, {5500, 0.006});
  EXPECT_EQ(r.low, (std::vector<std::string>{"layer 1", "layer 2"}));
  EXPECT_FALSE(r.meets_budget);  // the size needs more than the KLD allows
}

}  // namespace
}  // namespace pipette::sensitivity
