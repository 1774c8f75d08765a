#include "pipette/protocol/proc_status.h"

#include <gtest/gtest.h>

namespace pipette::protocol {
namespace {

TEST(ProcStatusBytes, ReadsOneKbLineByItsExactKey) {
  const char* status = "Name:\tx\nVmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\nThreads:\t1\n";
  EXPECT_EQ(ProcStatusBytes(status, "VmRSS"), 1024 * 1024);
  EXPECT_EQ(ProcStatusBytes(status, "VmHWM"), 2048 * 1024);
  EXPECT_EQ(ProcStatusBytes(status, "VmPeak"), std::nullopt);
  EXPECT_EQ(ProcStatusBytes("VmRSSx:\t1 kB\n", "VmRSS"), std::nullopt);    // another key
  EXPECT_EQ(ProcStatusBytes("VmRSS:\t1024 MB\n", "VmRSS"), std::nullopt);  // not kB
  EXPECT_EQ(ProcStatusBytes("VmRSS:\tx kB\n", "VmRSS"), std::nullopt);
  EXPECT_EQ(ProcStatusBytes("VmRSS:\t7 kB", "VmRSS"), 7 * 1024);  // no final newline
}

}  // namespace
}  // namespace pipette::protocol
