#include "pipette/workload/speed/measures.h"

#include <gtest/gtest.h>

namespace pipette::workload::speed {
namespace {

using nlohmann::json;

TEST(SpeedMeasures, PpThroughputIsTokensOverTime) {
  json raw = {{"n_tokens", 512}, {"t_start_ns", 1'000'000'000}, {"t_end_ns", 1'250'000'000}};
  EXPECT_DOUBLE_EQ(*PpTokensPerSecond(raw), 2048.0);
  EXPECT_FALSE(PpTokensPerSecond({{"n_tokens", 5}}).has_value());
  EXPECT_FALSE(PpTokensPerSecond({{"n_tokens", 5}, {"t_start_ns", 5}, {"t_end_ns", 5}}));
}

TEST(SpeedMeasures, TgThroughputAndInterTokenLatencies) {
  // 4 tokens: 10 ms, 20 ms, 10 ms, 10 ms after a start at t=0.
  json raw = {{"t_start_ns", 0},
              {"token_end_ns", {10'000'000, 30'000'000, 40'000'000, 50'000'000}},
              {"runtime_perf", {{"t_eval_ms", 48.0}, {"n_eval", 4}}}};
  EXPECT_DOUBLE_EQ(*TgTokensPerSecond(raw), 80.0);
  EXPECT_EQ(InterTokenLatenciesMs(raw), (std::vector<double>{10, 20, 10, 10}));
  EXPECT_DOUBLE_EQ(*RuntimeMsPerToken(raw), 12.0);
  EXPECT_DOUBLE_EQ(*DecodeSeconds(raw), 0.05);
  EXPECT_FALSE(DecodeSeconds({{"t_start_ns", 0}, {"token_end_ns", json::array()}}));
}

TEST(SpeedMeasures, Ttft) {
  EXPECT_DOUBLE_EQ(*TtftMs({{"t_start_ns", 1'000'000}, {"t_first_token_ns", 46'000'000}}), 45.0);
  EXPECT_FALSE(TtftMs({{"t_start_ns", 2}, {"t_first_token_ns", 1}}));
}

}  // namespace
}  // namespace pipette::workload::speed
