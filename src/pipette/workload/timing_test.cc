#include "pipette/workload/timing.h"

#include <gtest/gtest.h>

namespace pipette::workload {
namespace {

using nlohmann::json;

TEST(SpanSeconds, FromStartToEndOfTheWorkersClock) {
  EXPECT_DOUBLE_EQ(*SpanSeconds({{"t_start_ns", 1000000000}, {"t_end_ns", 1500000000}}), 0.5);
  EXPECT_FALSE(SpanSeconds({{"t_start_ns", 5}, {"t_end_ns", 5}}));  // no span
  EXPECT_FALSE(SpanSeconds({{"t_start_ns", 5}}));
  EXPECT_FALSE(SpanSeconds({{"t_start_ns", "5"}, {"t_end_ns", 9}}));
  EXPECT_FALSE(SpanSeconds(json::array()));
  // A timestamp past int64 reads as absent (it was converted, undefined behaviour).
  EXPECT_FALSE(SpanSeconds({{"t_start_ns", 0}, {"t_end_ns", 3.54526e+29}}));
  EXPECT_FALSE(SpanSeconds({{"t_start_ns", -1e300}, {"t_end_ns", 5}}));
}

TEST(Timed, AChunkPerTokenOfItsRequestAndAnItemAsOneUnit) {
  const int64_t s = 1000000000;
  const auto chunk =
      ChunkTimed({{"t_start_ns", 0}, {"t_end_ns", s}, {"request", {{"n_ctx", 500}}}}, "ppl");
  ASSERT_TRUE(chunk);
  EXPECT_EQ(chunk->kind, "ppl");
  EXPECT_DOUBLE_EQ(chunk->units, 500);
  EXPECT_DOUBLE_EQ(chunk->seconds, 1.0);
  EXPECT_DOUBLE_EQ(ChunkTimed({{"t_start_ns", 0}, {"t_end_ns", s}, {"n_tokens", 8}}, "kld")->units,
                   8);
  EXPECT_FALSE(ChunkTimed({{"t_start_ns", 0}, {"t_end_ns", s}, {"request", {{"n_ctx", "x"}}}},
                          "ppl"));  // no length: no rate
  const auto item = ItemTimed({{"t_start_ns", 0}, {"t_end_ns", 2 * s}}, "mc");
  ASSERT_TRUE(item);
  EXPECT_DOUBLE_EQ(item->units, 1);
  EXPECT_DOUBLE_EQ(item->seconds, 2.0);
  EXPECT_FALSE(ItemTimed({{"answer", 1}}, "mc"));  // stored without timestamps
}

}  // namespace
}  // namespace pipette::workload
