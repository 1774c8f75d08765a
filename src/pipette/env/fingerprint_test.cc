#include "pipette/env/fingerprint.h"

#include <gtest/gtest.h>

#include <cmath>

#include "pipette/testing/paths.h"

namespace pipette::env {
namespace {

TEST(FingerprintIdTest, StableAcrossRunsAndHosts) {
  nlohmann::json fp = {{"cpu_model", "AMD EPYC"},
                       {"cpu_cores_logical", 2},
                       {"isa_flags", {"avx", "avx2"}},
                       {"mem_total_bytes", int64_t{24684096} * 1024},
                       {"kernel", "6.1.0"},
                       {"hostname", "a"},
                       {"memory_bandwidth", {{"triad_bytes_per_s", 1e10}}}};
  std::string id = FingerprintId(fp);
  ASSERT_EQ(id.size(), 16u);
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos);

  nlohmann::json other_run = fp;
  other_run["hostname"] = "b";
  other_run["kernel"] = "6.2.0";
  other_run["memory_bandwidth"]["triad_bytes_per_s"] = 2e10;
  other_run["cpu_freq_cur_khz"] = 1234;
  other_run["mem_total_bytes"] = int64_t{24684096 - 4096} * 1024;  // a few MiB less
  EXPECT_EQ(FingerprintId(other_run), id);

  nlohmann::json other_machine = fp;
  other_machine["cpu_model"] = "Intel";
  EXPECT_NE(FingerprintId(other_machine), id);
  other_machine = fp;
  other_machine["mem_total_bytes"] = int64_t{48} << 30;
  EXPECT_NE(FingerprintId(other_machine), id);
}

TEST(ConditionsTest, ToJsonNullsMissingReadings) {
  Conditions c;
  c.load_avg_1 = 0.5;
  c.mem_available_bytes = 1024;
  c.cpu_temp_c = 41.5;
  nlohmann::json j = ToJson(c);
  EXPECT_EQ(j["load_avg_1"], 0.5);
  EXPECT_TRUE(j["load_avg_5"].is_null());
  EXPECT_EQ(j["mem_available_bytes"], 1024);
  EXPECT_TRUE(j["mem_free_bytes"].is_null());
  EXPECT_EQ(j["cpu_temp_c"], 41.5);
  EXPECT_TRUE(j["cpu_freq_cur_khz"].is_null());
}

// On the machine running the tests: sanity only, never speed thresholds.
TEST(RealMachineTest, CollectFingerprint) {
  FingerprintOptions opts;
  opts.bandwidth_probe = pipette::testing::BinaryDir() + "/pipette-probe";  // a child process
  nlohmann::json fp = CollectFingerprint(opts);
  ASSERT_TRUE(fp["cpu_model"].is_string());
  EXPECT_FALSE(fp["cpu_model"].get<std::string>().empty());
  ASSERT_TRUE(fp["mem_total_bytes"].is_number_integer());
  EXPECT_GT(fp["mem_total_bytes"].get<int64_t>(), 0);
  ASSERT_TRUE(fp["kernel"].is_string());
  EXPECT_FALSE(fp["kernel"].get<std::string>().empty());
  EXPECT_GT(fp["cpu_cores_logical"].get<int>(), 0);
  EXPECT_TRUE(fp["isa_flags"].is_array());
  ASSERT_TRUE(fp.contains("memory_bandwidth"));
  ASSERT_TRUE(fp["memory_bandwidth"].contains("triad_bytes_per_s")) << fp["memory_bandwidth"];
  double triad = fp["memory_bandwidth"]["triad_bytes_per_s"].get<double>();
  EXPECT_TRUE(std::isfinite(triad));
  EXPECT_GT(triad, 0);
  // Sized for this machine: 4 x its last-level cache at least 64 MiB, at most 1 GiB.
  const int64_t array = fp["memory_bandwidth"]["array_bytes"].get<int64_t>();
  EXPECT_GE(array, int64_t{4} << 20);
  EXPECT_LE(array, int64_t{1} << 30);
  EXPECT_EQ(FingerprintId(fp).size(), 16u);
  // The probe's arrays were never this process's memory.
  auto own = OwnPeakRssBytes();
  ASSERT_TRUE(own);
  EXPECT_LT(*own, 3 * array);

  opts.bandwidth_probe = "/nonexistent/pipette-probe";
  nlohmann::json missing = CollectFingerprint(opts);
  ASSERT_TRUE(missing["memory_bandwidth"].contains("na"));
  EXPECT_NE(missing["memory_bandwidth"]["na"].get<std::string>().find("/nonexistent/pipette-probe"),
            std::string::npos);
  EXPECT_EQ(FingerprintId(missing), FingerprintId(fp));

  opts.measure_bandwidth = false;
  nlohmann::json again = CollectFingerprint(opts);
  EXPECT_FALSE(again.contains("memory_bandwidth"));
  EXPECT_EQ(FingerprintId(again), FingerprintId(fp));
}

TEST(RealMachineTest, ReadConditions) {
  Conditions c = ReadConditions();
  EXPECT_GE(c.load_avg_1, 0);
  EXPECT_GT(c.mem_available_bytes, 0);
  EXPECT_GT(c.mem_free_bytes, 0);
}

}  // namespace
}  // namespace pipette::env
