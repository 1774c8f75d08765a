#include "pipette/env/cpu_busy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "pipette/testing/busy_loops.h"

namespace pipette::env {
namespace {

TEST(CpuBusy, ParsesProcStatAndPidStat) {
  const auto t = ParseProcStat("cpu  100 5 50 800 20 3 2 1 0 0\ncpu0 50 2 25 400 10 1 1 0 0 0\n");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->total, 100 + 5 + 50 + 800 + 20 + 3 + 2 + 1);
  EXPECT_EQ(t->busy, 100 + 5 + 50 + 3 + 2 + 1);  // idle and iowait are not busy
  EXPECT_FALSE(ParseProcStat("intr 1 2 3\n").has_value());
  // A command name with spaces and parentheses: the last ')' ends it.
  const auto p = ParsePidStat(
      "4242 (a (b) c) S 17 4242 4242 0 -1 4194560 100 0 0 0 250 30 0 0 20 "
      "0 3 0 123 4567 89\n");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->pid, 4242);
  EXPECT_EQ(p->ppid, 17);
  EXPECT_EQ(p->ticks, 280);
  EXPECT_FALSE(ParsePidStat("garbage").has_value());
  // Fields past stime may not fit in 64 bits (RLIM_INFINITY): they are not read.
  const auto real = ParsePidStat(
      "1319 (t) R 1303 1303 11689 0 -1 4194304 273 0 1 0 7 3 0 0 20 0 1 0 3226757 11132928 1213 "
      "18446744073709551615 93943655043072\n");
  ASSERT_TRUE(real.has_value());
  EXPECT_EQ(real->ticks, 10);
}

TEST(CpuBusy, PipettesOwnTreeIsLeftOutEvenAsPid1) {
  // In a container Pipette may be pid 1 itself.
  const SnapshotFiles files({
      {"/proc/stat", "cpu  10 0 0 90 0 0 0 0\n"},
      {"/proc/1/stat", "1 (pipette) S 0 0 0 0 0 0 0 0 0 0 5 0 0 0\n"},
      {"/proc/7/stat", "7 (pipette-worker) R 1 0 0 0 0 0 0 0 0 0 4 0 0 0\n"},
  });
  const auto r = ReadBusy(files, 1);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->own_ticks, 9);
}

TEST(CpuBusy, PipettesOwnTreeIsLeftOut) {
  // pid 10 is the controller, 11 its worker, 12 the worker's child; 20 someone else's.
  auto reading = [](int64_t own, int64_t other, int64_t busy, int64_t total) {
    return SnapshotFiles({
        {"/proc/stat",
         "cpu  " + std::to_string(busy) + " 0 0 " + std::to_string(total - busy) + " 0 0 0 0\n"},
        {"/proc/10/stat", "10 (pipette) S 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n"},
        {"/proc/11/stat",
         "11 (pipette-worker) R 10 0 0 0 0 0 0 0 0 0 " + std::to_string(own) + " 0 0 0\n"},
        {"/proc/12/stat", "12 (qemu) R 11 0 0 0 0 0 0 0 0 0 0 0 0 0\n"},
        {"/proc/20/stat",
         "20 (backup) R 1 0 0 0 0 0 0 0 0 0 " + std::to_string(other) + " 0 0 0\n"},
        {"/proc/self/stat", "not a process directory\n"},
    });
  };
  const auto a = ReadBusy(reading(1000, 500, 3000, 10000), 10);
  const auto b = ReadBusy(reading(1150, 520, 3180, 10200), 10);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->own_ticks, 1000);
  // Over the window: 200 ticks in all, 180 busy, 150 of them the worker's: 30 others' = 15%.
  EXPECT_DOUBLE_EQ(*BusyOthers(*a, *b), 30.0 / 200.0);
  EXPECT_FALSE(BusyOthers(*a, *a).has_value());  // no tick passed: unknown, not "idle"
  EXPECT_FALSE(ReadBusy(SnapshotFiles({}), 10).has_value());
}

// For real: busy loops this test starts make the CPUs busy; counted as Pipette's own (under the
// root given), they do not.
TEST(CpuBusy, ABusyLoopShowsAndIsLeftOutWhenItIsOurs) {
  const pipette::testing::BusyLoops loops;
  const LocalFiles files;
  auto window = [&](int64_t root) {
    const auto a = ReadBusy(files, root);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const auto b = ReadBusy(files, root);
    EXPECT_TRUE(a && b);
    return a && b ? BusyOthers(*a, *b).value_or(-1.0) : -1.0;
  };
  // Someone else's loops: the root is a pid no process has.
  const double others = window(0x7ffffff0);
  EXPECT_GT(others, 0.5) << "the loops keep every CPU busy";
  // The same loops under this process: Pipette's own.
  const double ours = window(getpid());
  EXPECT_LT(ours, others - 0.2) << "others " << others << ", ours " << ours;
}

}  // namespace
}  // namespace pipette::env
