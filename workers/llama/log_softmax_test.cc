#include "log_softmax.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace pipette::llama_worker {
namespace {

TEST(LogSoftmax, LogSumExpIsStableForLargeLogits) {
  const std::vector<float> logits = {1000.0f, 1000.0f};
  EXPECT_NEAR(LogSumExp({logits.data(), 2}), 1000.0 + std::log(2.0), 1e-9);
  const std::vector<float> small = {0.0f, std::log(3.0f)};
  EXPECT_NEAR(LogSumExp({small.data(), 2}), std::log(4.0), 1e-6);
}

TEST(LogSoftmax, ArgmaxTakesTheFirstOnTies) {
  const std::vector<float> logits = {1.0f, 3.0f, 3.0f, -2.0f};
  EXPECT_EQ(Argmax({logits.data(), 4}), 1);
}

TEST(LogSoftmax, TopKIsOrderedAndItsTailHoldsTheRest) {
  const std::vector<float> logits = {0.0f, 2.0f, 1.0f, 2.0f};
  const LogitView v{logits.data(), 4};
  const double lse = LogSumExp(v);
  const auto top = TopK(v, 3, lse);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].first, 1);  // ties: the lower id first
  EXPECT_EQ(top[1].first, 3);
  EXPECT_EQ(top[2].first, 2);
  EXPECT_NEAR(top[0].second, 2.0 - lse, 1e-12);
  // The tail is the one id left out: id 0.
  EXPECT_NEAR(TailLogProb(v, {1, 3, 2}, lse), 0.0 - lse, 1e-12);
  // Everything chosen: the tail is the floor, still finite.
  EXPECT_NEAR(TailLogProb(v, {0, 1, 2, 3}, lse), std::log(1e-300), 1e-9);
  EXPECT_EQ(TopK(v, 10, lse).size(), 4u);  // k is capped at the vocabulary
}

TEST(LogSoftmax, ATinyTailKeepsItsPrecision) {
  // 1 - p would round to 0 in double; summing the rest directly does not.
  std::vector<float> logits(3, -80.0f);
  logits[0] = 0.0f;
  const LogitView v{logits.data(), 3};
  const double lse = LogSumExp(v);
  EXPECT_NEAR(TailLogProb(v, {0}, lse), std::log(2.0) - 80.0, 1e-9);
}

}  // namespace
}  // namespace pipette::llama_worker
