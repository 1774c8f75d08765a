#include "pipette/env/cgroup_tier.h"

#include <gtest/gtest.h>

namespace pipette::env {
namespace {

using nlohmann::json;

Tier Low() {
  Tier t;
  t.cpus = {0, 2};
  t.cpu_quota = 0.5;
  t.memory_bytes = int64_t{512} << 20;
  return t;
}

TEST(CgroupTier, JsonRoundTripAndLabel) {
  const Tier t = Low();
  EXPECT_EQ(t.ToJson(), json::parse(R"({"cpus":[0,2],"cpu_quota":0.5,"memory_bytes":536870912})"));
  const Tier back = Tier::FromJson(t.ToJson());
  EXPECT_EQ(back.cpus, t.cpus);
  EXPECT_EQ(back.cpu_quota, t.cpu_quota);
  EXPECT_EQ(back.memory_bytes, t.memory_bytes);
  EXPECT_EQ(t.Label(), "emulated tier: cpus 0,2, quota 0.5 CPU, memory 512.00 MiB");
  Tier only_memory;
  only_memory.memory_bytes = int64_t{1} << 30;
  EXPECT_EQ(only_memory.Label(), "emulated tier: memory 1.00 GiB");
  EXPECT_TRUE(Tier{}.Empty());
  EXPECT_FALSE(only_memory.Empty());
}

TEST(CgroupTier, TheCreateScriptWritesEachLimitAndSaysWhereItMadeThem) {
  const std::string s = TierCreateScript(Low(), "pipette-1-2-3");
  // Each controller's cgroup made under the shell's own, with its limit.
  EXPECT_NE(s.find("mk cpuset pipette-1-2-3"), std::string::npos);
  EXPECT_NE(s.find("put \"$S/cpuset.cpus\" 0,2"), std::string::npos);
  EXPECT_NE(s.find("put \"$C/cpu.cfs_period_us\" 100000"), std::string::npos);
  EXPECT_NE(s.find("put \"$C/cpu.cfs_quota_us\" 50000"), std::string::npos);
  EXPECT_NE(s.find("put \"$M/memory.limit_in_bytes\" 536870912"), std::string::npos);
  EXPECT_NE(s.find("memory.memsw.limit_in_bytes\" 536870912"), std::string::npos);
  EXPECT_NE(s.find("echo \"cgroup memory $M\""), std::string::npos);
  // Only what the tier limits.
  Tier quota;
  quota.cpu_quota = 1.5;
  const std::string q = TierCreateScript(quota, "x");
  EXPECT_NE(q.find("cfs_quota_us\" 150000"), std::string::npos);
  EXPECT_EQ(q.find("mk memory"), std::string::npos);
  EXPECT_EQ(q.find("mk cpuset"), std::string::npos);
}

TEST(CgroupTier, FoldersAreParsedAndJoinedByTheWorkersShell) {
  auto c = ParseTierCgroups(
      "cgroup cpuset /sys/fs/cgroup/cpuset/p-1\ncgroup memory /sys/fs/cgroup/memory/a b/p-1\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->at("cpuset"), "/sys/fs/cgroup/cpuset/p-1");
  EXPECT_EQ(c->at("memory"), "/sys/fs/cgroup/memory/a b/p-1");
  const std::string join = TierJoinPrelude(*c);
  EXPECT_NE(join.find("echo $$ > \"$d/cgroup.procs\""), std::string::npos);
  EXPECT_NE(join.find("'/sys/fs/cgroup/memory/a b/p-1'"), std::string::npos);  // quoted
  EXPECT_FALSE(ParseTierCgroups("").ok());
  EXPECT_FALSE(ParseTierCgroups("cgroup memory relative/path\n").ok());
  EXPECT_FALSE(ParseTierCgroups("hello\n").ok());
}

TEST(CgroupTier, TheReadScriptResetsThePeakOnlyWhenAsked) {
  TierCgroups c = {{"memory", "/m"}, {"cpu", "/c"}, {"cpuset", "/s"}};
  const std::string reset = TierReadScript(c, 42, true);
  EXPECT_NE(reset.find("echo 0 > /m/memory.max_usage_in_bytes"), std::string::npos);
  EXPECT_NE(reset.find("/proc/42/status"), std::string::npos);
  EXPECT_NE(reset.find("/c/cpu.stat"), std::string::npos);
  EXPECT_EQ(TierReadScript(c, 42, false).find("echo 0 >"), std::string::npos);
}

TEST(CgroupTier, ReadingsAreNumbersAndCpuListsStayText) {
  const json r = ParseTierReading(
      "memory.max_usage_in_bytes 67108864\nmemory.oom_control.oom_kill 1\ncpu.nr_throttled 8\n"
      "cpuset.cpus 0\nworker.cpus_allowed_list 0-1\nodd line-without-number x\n\n");
  EXPECT_EQ(r["memory.max_usage_in_bytes"], 67108864);
  EXPECT_EQ(r["cpu.nr_throttled"], 8);
  EXPECT_EQ(r["cpuset.cpus"], "0");
  EXPECT_EQ(r["worker.cpus_allowed_list"], "0-1");
  EXPECT_EQ(r["odd"], "line-without-number x");
}

TEST(CgroupTier, OomIsAKillDuringTheCell) {
  const json before = {{"memory.oom_control.oom_kill", 1}};
  const json killed = {{"memory.oom_control.oom_kill", 2}};
  EXPECT_TRUE(OomKilled(before, killed));
  EXPECT_FALSE(OomKilled(killed, killed));  // an earlier cell's kill is not this cell's
  EXPECT_TRUE(OomKilled(json(), killed));
  EXPECT_FALSE(OomKilled(before, json{{"na", "gone"}}));
  // A kernel without the counter: the peak at the cap.
  EXPECT_TRUE(OomKilled(
      json(), {{"memory.max_usage_in_bytes", 1 << 20}, {"memory.limit_in_bytes", 1 << 20}}));
  EXPECT_FALSE(OomKilled(
      json(), {{"memory.max_usage_in_bytes", 1 << 19}, {"memory.limit_in_bytes", 1 << 20}}));
}

}  // namespace
}  // namespace pipette::env
