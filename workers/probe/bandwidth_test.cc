#include "probe/bandwidth.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

namespace pipette::probe {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

TEST(MeasureBandwidthTest, SmallExplicitRun) {
  BandwidthOptions opts;
  opts.array_bytes = 4 * kMiB;
  opts.threads = 2;
  opts.repetitions = 3;
  BandwidthResult r = MeasureBandwidth(opts);
  EXPECT_TRUE(std::isfinite(r.triad_bytes_per_s));
  EXPECT_TRUE(std::isfinite(r.copy_bytes_per_s));
  EXPECT_GT(r.triad_bytes_per_s, 0);
  EXPECT_GT(r.copy_bytes_per_s, 0);
  EXPECT_EQ(r.array_bytes, 4 * kMiB);
  EXPECT_EQ(r.threads, 2);
  EXPECT_EQ(r.repetitions, 3);
}

TEST(MeasureBandwidthTest, MoreThreadsThanElements) {
  BandwidthOptions opts;
  opts.array_bytes = 8;
  opts.threads = 3;
  opts.repetitions = 1;
  BandwidthResult r = MeasureBandwidth(opts);
  EXPECT_GT(r.triad_bytes_per_s, 0);
  EXPECT_EQ(r.array_bytes, 3 * sizeof(double));
}

TEST(MeasureBandwidthTest, DefaultOptions) {
  auto start = std::chrono::steady_clock::now();
  BandwidthResult r = MeasureBandwidth();  // 64 MiB arrays, every CPU
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(std::isfinite(r.triad_bytes_per_s));
  EXPECT_GT(r.triad_bytes_per_s, 0);
  EXPECT_EQ(r.array_bytes, 64 * kMiB);
  EXPECT_GE(r.threads, 1);
  EXPECT_EQ(r.repetitions, 5);
  RecordProperty("triad_GBps", std::to_string(r.triad_bytes_per_s / 1e9));
  RecordProperty("copy_GBps", std::to_string(r.copy_bytes_per_s / 1e9));
  RecordProperty("seconds", std::to_string(seconds));
}

}  // namespace
}  // namespace pipette::probe
