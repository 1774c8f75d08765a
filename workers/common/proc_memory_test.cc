#include "proc_memory.h"

#include <gtest/gtest.h>

#include <vector>

namespace pipette::worker_common {
namespace {

TEST(ProcMemory, ParsesTheStatusLinesInBytes) {
  auto r = ParseProcStatus("Name:\tx\nVmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\nThreads:\t1\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->rss, 1024 * 1024);
  EXPECT_EQ(r->hwm, 2048 * 1024);
  EXPECT_EQ(r->swap, std::nullopt);  // a kernel without swap accounting writes no VmSwap line
  auto swapped = ParseProcStatus("VmHWM:\t2048 kB\nVmRSS:\t1024 kB\nVmSwap:\t512 kB\n");
  ASSERT_TRUE(swapped.ok());
  EXPECT_EQ(swapped->swap, 512 * 1024);
  auto missing = ParseProcStatus("VmRSS:\t1024 kB\n");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "cannot read VmRSS/VmHWM from /proc/self/status");
  EXPECT_FALSE(ParseProcStatus("VmRSS:\t1024 MB\nVmHWM:\t1 kB\n").ok());
}

TEST(ProcMemory, ReadsThisProcessAndItsPeakFollowsAnAllocation) {
  auto before = ReadMemory();
  ASSERT_TRUE(before.ok()) << before.error().message;
  EXPECT_GT(before->rss, 0);
  EXPECT_GE(before->hwm, before->rss);
  std::vector<char> touched(64 << 20, 1);  // 64 MiB, written: resident
  auto after = ReadMemory();
  ASSERT_TRUE(after.ok());
  EXPECT_GE(after->hwm, before->rss + (32 << 20));
  touched.clear();
  touched.shrink_to_fit();
  if (ResetPeakMemory().ok()) {  // not allowed everywhere (some containers)
    auto reset = ReadMemory();
    ASSERT_TRUE(reset.ok());
    EXPECT_LT(reset->hwm, after->hwm);
  }
}

}  // namespace
}  // namespace pipette::worker_common
