#include "pipette/env/bandwidth.h"

#include <gtest/gtest.h>

namespace pipette::env {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

TEST(DefaultArrayBytesTest, LargerThanCacheWithinLimits) {
  EXPECT_EQ(DefaultArrayBytes(0, 0), 64 * kMiB);
  EXPECT_EQ(DefaultArrayBytes(8 * kMiB, 0), 64 * kMiB);
  EXPECT_EQ(DefaultArrayBytes(32 * kMiB, 0), 128 * kMiB);
  EXPECT_EQ(DefaultArrayBytes(512 * kMiB, 0), 1024 * kMiB);        // capped
  EXPECT_EQ(DefaultArrayBytes(32 * kMiB, 512 * kMiB), 64 * kMiB);  // an eighth of free memory
  EXPECT_EQ(DefaultArrayBytes(32 * kMiB, 8 * kMiB), 4 * kMiB);     // floor
}

TEST(BandwidthProbeArgsTest, SizedFromTheDevicesFacts) {
  const nlohmann::json facts = {{"cache_l2_bytes", 2 << 20}, {"cache_l3_bytes", 32 << 20}};
  EXPECT_EQ(BandwidthProbeArgs(facts, -1),
            (std::vector<std::string>{"bandwidth", "--array-bytes", std::to_string(128 * kMiB)}));
  // A phone with 1 GiB free: an eighth of it.
  EXPECT_EQ(BandwidthProbeArgs(facts, int64_t{1} << 30)[2], std::to_string(128 * kMiB));
  EXPECT_EQ(BandwidthProbeArgs(facts, int64_t{512} << 20)[2], std::to_string(64 * kMiB));
  // Unknown caches (null facts): the 64 MiB floor of the rule.
  EXPECT_EQ(BandwidthProbeArgs({{"cache_l3_bytes", nullptr}}, -1)[2], std::to_string(64 * kMiB));
}

TEST(ParseBandwidthReplyTest, TheProbesLine) {
  auto fact = ParseBandwidthReply(
      "{\"triad_bytes_per_s\":1.5e10,\"copy_bytes_per_s\":1.2e10,\"array_bytes\":67108864,"
      "\"threads\":2,\"repetitions\":5}\n");
  ASSERT_TRUE(fact) << fact.error().message;
  EXPECT_EQ((*fact)["triad_bytes_per_s"], 1.5e10);
  EXPECT_EQ((*fact)["array_bytes"], 67108864);
  EXPECT_EQ((*fact)["threads"], 2);
}

TEST(ParseBandwidthReplyTest, NonsenseIsAnError) {
  EXPECT_NE(ParseBandwidthReply("Segmentation fault").error().message.find("not a JSON object"),
            std::string::npos);
  EXPECT_NE(ParseBandwidthReply("{\"triad_bytes_per_s\":0,\"copy_bytes_per_s\":1}")
                .error()
                .message.find("no positive triad_bytes_per_s"),
            std::string::npos);
  EXPECT_NE(ParseBandwidthReply("{\"triad_bytes_per_s\":1,\"copy_bytes_per_s\":1,"
                                "\"array_bytes\":1.5,\"threads\":1,\"repetitions\":1}")
                .error()
                .message.find("no positive whole array_bytes"),
            std::string::npos);
}

TEST(BandwidthFactTest, NaWithTheReason) {
  auto fact = [](Result<CommandResult> r) { return BandwidthFact(r, "/x/pipette-probe"); };
  EXPECT_EQ(fact(RuntimeError("no such file")),
            nlohmann::json({{"na",
                             "the memory bandwidth probe /x/pipette-probe could not start: "
                             "no such file"}}));
  CommandResult failed;
  failed.exit_code = 1;
  failed.err = "cannot allocate 3 arrays\n";
  EXPECT_EQ(fact(failed)["na"],
            "the memory bandwidth probe /x/pipette-probe failed (exit code 1): cannot allocate 3 "
            "arrays");
  CommandResult slow;
  slow.exit_code = -1;
  slow.timed_out = true;
  EXPECT_EQ(fact(slow)["na"], "the memory bandwidth probe /x/pipette-probe ran out of time");
  CommandResult ok;
  ok.out =
      "{\"triad_bytes_per_s\":2,\"copy_bytes_per_s\":1,\"array_bytes\":8,\"threads\":1,"
      "\"repetitions\":1}";
  EXPECT_EQ(fact(ok)["triad_bytes_per_s"], 2.0);
}

}  // namespace
}  // namespace pipette::env
