#include "pipette/env/process.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace pipette::env {
namespace {

TEST(Process, StatLinesParseEvenWithParenthesesInTheName) {
  // Field 22 (start time) is 12345; the command name holds spaces and a ')'.
  const std::string stat =
      "4242 (pipette) worker) S 77 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 3 0 12345 "
      "1000000 250 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
  EXPECT_EQ(ParseStatStartTicks(stat), 12345u);
  EXPECT_EQ(ParseStatParent(stat), 77);
  EXPECT_FALSE(ParseStatStartTicks("4242 (short) S 1 2").has_value());
  EXPECT_FALSE(ParseStatStartTicks("no parenthesis at all").has_value());
}

TEST(Process, ThisProcessIsAliveByItsOwnRecord) {
  LinuxProcessTable table;
  const ProcessIdentity self = table.Self();
  EXPECT_EQ(self.pid, ::getpid());
  EXPECT_GT(self.start_ticks, 0u);
  EXPECT_FALSE(self.host.empty());
  EXPECT_EQ(CheckLiveness(self, table), Liveness::kAlive);
  ProcessIdentity later = self;
  later.start_ticks += 1;  // the same pid, another process
  EXPECT_EQ(CheckLiveness(later, table), Liveness::kGone);
  const ProcessIdentity back = ProcessIdentity::FromJson(self.ToJson());
  EXPECT_EQ(back.pid, self.pid);
  EXPECT_EQ(back.start_ticks, self.start_ticks);
  EXPECT_EQ(back.boot_id, self.boot_id);
  EXPECT_EQ(back.pid_ns, self.pid_ns);
  EXPECT_FALSE(self.pid_ns.empty());
  EXPECT_TRUE(table.Exists(self.pid));
  EXPECT_FALSE(table.Exists(0));
}

TEST(Process, LivenessByHostBootAndStartTime) {
  ProcessIdentity self = ProcessIdentity::Of("here", "m1", "b1", 10, 100);
  FakeProcessTable table(self);
  table.Start(20, 200);
  EXPECT_EQ(CheckLiveness(ProcessIdentity::Of("here", "m1", "b1", 20, 200), table),
            Liveness::kAlive);
  EXPECT_EQ(CheckLiveness(ProcessIdentity::Of("here", "m1", "b1", 20, 199), table),
            Liveness::kGone);
  EXPECT_EQ(CheckLiveness(ProcessIdentity::Of("here", "m1", "b1", 21, 200), table),
            Liveness::kGone);
  EXPECT_EQ(CheckLiveness(ProcessIdentity::Of("here", "m1", "b0", 20, 200), table),
            Liveness::kGone);  // rebooted
  EXPECT_EQ(CheckLiveness(ProcessIdentity::Of("there", "m1", "b1", 20, 200), table),
            Liveness::kElsewhere);
  EXPECT_EQ(CheckLiveness(ProcessIdentity::Of("here", "m2", "b1", 20, 200), table),
            Liveness::kElsewhere);
  EXPECT_EQ(CheckLiveness({}, table), Liveness::kUnknown);
  // Another container of this host (same name, machine and boot; its own pids).
  ProcessIdentity in_container = ProcessIdentity::Of("here", "m1", "b1", 20, 200, "pid:[2]");
  ProcessIdentity self_ns = self;
  self_ns.pid_ns = "pid:[1]";
  FakeProcessTable with_ns(self_ns);
  EXPECT_EQ(CheckLiveness(in_container, with_ns), Liveness::kElsewhere);
  in_container.pid_ns = "pid:[1]";
  EXPECT_EQ(CheckLiveness(in_container, with_ns), Liveness::kGone);
  // A pid that runs but whose start time cannot be read (hidepid): never taken for gone.
  table.Hide(30);
  EXPECT_EQ(CheckLiveness(ProcessIdentity::Of("here", "m1", "b1", 30, 300), table),
            Liveness::kAlive);
  EXPECT_TRUE(ProcessIdentity::FromJson(nlohmann::json::object()).empty());
  EXPECT_TRUE(ProcessIdentity::FromJson(nullptr).empty());
}

// A controller or lock holder read back from a store or a lock file edited by hand: fields of
// another type, or numbers past what they hold, read as absent (a pid that cannot be a pid: no
// process at all), never an exception or an overflow.
TEST(ProcessIdentity, FieldsOfAnotherTypeReadAsAbsent) {
  using nlohmann::json;
  const ProcessIdentity odd = ProcessIdentity::FromJson(
      {{"pid", 42}, {"host", 5}, {"boot_id", json::array()}, {"start_ticks", 1e300}});
  EXPECT_EQ(odd.pid, 42);
  EXPECT_EQ(odd.host, "");
  EXPECT_EQ(odd.boot_id, "");
  EXPECT_EQ(odd.start_ticks, 0u);
  EXPECT_EQ(ProcessIdentity::FromJson({{"pid", 42}, {"start_ticks", "7"}}).start_ticks, 0u);
  EXPECT_EQ(ProcessIdentity::FromJson({{"pid", 42}, {"start_ticks", 7}}).start_ticks, 7u);
  EXPECT_TRUE(ProcessIdentity::FromJson({{"pid", 4294967296LL}}).empty());
  EXPECT_TRUE(ProcessIdentity::FromJson({{"pid", -3}}).empty());
  EXPECT_TRUE(ProcessIdentity::FromJson({{"pid", 18446744073709551615ULL}}).empty());
  EXPECT_TRUE(ProcessIdentity::FromJson({{"pid", "42"}}).empty());
}

}  // namespace
}  // namespace pipette::env
