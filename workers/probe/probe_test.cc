#include "probe/probe.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace pipette::probe {
namespace {

TEST(ParseBandwidthArgsTest, DefaultsAndEachOption) {
  BandwidthOptions opts;
  std::string error;
  ASSERT_TRUE(ParseBandwidthArgs({}, &opts, &error));
  EXPECT_EQ(opts.array_bytes, size_t{64} << 20);
  EXPECT_EQ(opts.threads, 0);
  EXPECT_EQ(opts.repetitions, 5);
  ASSERT_TRUE(ParseBandwidthArgs(
      {"--array-bytes", "1048576", "--threads", "3", "--repetitions", "2"}, &opts, &error))
      << error;
  EXPECT_EQ(opts.array_bytes, size_t{1} << 20);
  EXPECT_EQ(opts.threads, 3);
  EXPECT_EQ(opts.repetitions, 2);
}

TEST(ParseBandwidthArgsTest, BadArgumentsSayWhat) {
  BandwidthOptions opts;
  std::string error;
  EXPECT_FALSE(ParseBandwidthArgs({"--size", "1"}, &opts, &error));
  EXPECT_NE(error.find("unknown option '--size'"), std::string::npos) << error;
  EXPECT_FALSE(ParseBandwidthArgs({"--threads"}, &opts, &error));
  EXPECT_EQ(error, "--threads needs a value");
  EXPECT_FALSE(ParseBandwidthArgs({"--threads", "0"}, &opts, &error));
  EXPECT_NE(error.find("not '0'"), std::string::npos) << error;
  EXPECT_FALSE(ParseBandwidthArgs({"--array-bytes", "12x"}, &opts, &error));
  EXPECT_NE(error.find("not '12x'"), std::string::npos) << error;
  EXPECT_FALSE(ParseBandwidthArgs({"--repetitions", "-1"}, &opts, &error));
  EXPECT_NE(error.find("not '-1'"), std::string::npos) << error;
}

TEST(BandwidthJsonTest, FullPrecisionNumbers) {
  BandwidthResult r{.triad_bytes_per_s = 1.2345678901234567e10,
                    .copy_bytes_per_s = 9e9,
                    .array_bytes = 4096,
                    .threads = 2,
                    .repetitions = 5};
  const auto j = nlohmann::json::parse(BandwidthJson(r));
  EXPECT_EQ(j["triad_bytes_per_s"].get<double>(), r.triad_bytes_per_s);
  EXPECT_EQ(j["copy_bytes_per_s"].get<double>(), 9e9);
  EXPECT_EQ(j["array_bytes"], 4096);
  EXPECT_EQ(j["threads"], 2);
  EXPECT_EQ(j["repetitions"], 5);
}

TEST(ProbeMainTest, MeasuresAndPrintsOneLine) {
  std::ostringstream out, err;
  ASSERT_EQ(
      ProbeMain({"bandwidth", "--array-bytes", "1048576", "--threads", "1", "--repetitions", "1"},
                out, err),
      0)
      << err.str();
  const std::string text = out.str();
  ASSERT_EQ(text.back(), '\n');
  const auto j = nlohmann::json::parse(text);
  EXPECT_GT(j["triad_bytes_per_s"].get<double>(), 0);
  EXPECT_EQ(j["array_bytes"], 1048576);
  EXPECT_EQ(j["threads"], 1);
}

TEST(ProbeMainTest, UsageErrorsExitTwo) {
  std::ostringstream out, err;
  EXPECT_EQ(ProbeMain({}, out, err), 2);
  EXPECT_NE(err.str().find("usage: pipette-probe bandwidth"), std::string::npos);
  EXPECT_EQ(ProbeMain({"latency"}, out, err), 2);
  EXPECT_EQ(ProbeMain({"bandwidth", "--threads", "x"}, out, err), 2);
  EXPECT_TRUE(out.str().empty());
}

}  // namespace
}  // namespace pipette::probe
