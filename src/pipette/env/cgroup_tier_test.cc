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
  EXPECT_NE(s.find("put \"$S/${P}cpus\" 0,2"), std::string::npos);
  EXPECT_NE(s.find("P=cpuset.; [ -e \"$S/cpuset.cpus\" ] || P="), std::string::npos);  // Android
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

TEST(CgroupTier, EachLimitHasItsCgroupV2FormBesideItsV1One) {
  const std::string s = TierCreateScript(Low(), "n");
  // A controller v1 lacks comes from the v2 root, turned on in its subtree_control first.
  EXPECT_NE(s.find("$3==\"cgroup2\""), std::string::npos);
  EXPECT_NE(s.find("cgroup.subtree_control"), std::string::npos);
  EXPECT_NE(s.find("put \"$C/cpu.max\" \"50000 100000\""), std::string::npos);
  EXPECT_NE(s.find("put \"$M/memory.max\" 536870912"), std::string::npos);
  EXPECT_NE(s.find("put \"$M/memory.swap.max\" 0"), std::string::npos);
  // The v2 folder is shared: made once, each controller's `mk` finding it there.
  EXPECT_NE(s.find("case \"$d\" in \"$S\"|\"$C\"|\"$M\") return 0;; esac"), std::string::npos);
  // Any other folder of that name is another's: refused, never shared.
  EXPECT_NE(s.find("exists already"), std::string::npos);
}

TEST(CgroupTier, AV2TierIsOneFolderJoinedAndRemovedOnce) {
  const TierCgroups c = {{"cpu", "/sys/fs/cgroup/p"}, {"memory", "/sys/fs/cgroup/p"}};
  const std::string join = TierJoinPrelude(c);
  EXPECT_NE(join.find("for d in /sys/fs/cgroup/p; do"), std::string::npos) << join;
  const std::string remove = TierRemoveScript(c);
  EXPECT_NE(remove.find("for d in /sys/fs/cgroup/p; do i=0"), std::string::npos) << remove;
  // The reading takes v1's files where they are, else v2's, and says whose peak it is.
  const std::string read = TierReadScript(c, 7, true);
  EXPECT_NE(read.find("if [ -e /sys/fs/cgroup/p/memory.max_usage_in_bytes ]"), std::string::npos);
  EXPECT_NE(read.find("for f in peak max current"), std::string::npos);
  EXPECT_NE(read.find("sed 's/^/memory.events./' /sys/fs/cgroup/p/memory.events"),
            std::string::npos);
  EXPECT_NE(read.find("memory.peak_scope worker"), std::string::npos);
  EXPECT_NE(read.find("memory.peak_scope cell"), std::string::npos);
}

TEST(CgroupTier, PeakCapAndOomFromEitherVersionsKeys) {
  const json v1 = {{"memory.max_usage_in_bytes", 5}, {"memory.limit_in_bytes", 9}};
  const json v2 = {{"memory.peak", 6}, {"memory.max", 10}, {"memory.events.oom_kill", 0}};
  EXPECT_EQ(TierPeakBytes(v1), 5);
  EXPECT_EQ(TierCapBytes(v1), 9);
  EXPECT_EQ(TierPeakBytes(v2), 6);
  EXPECT_EQ(TierCapBytes(v2), 10);
  EXPECT_EQ(TierPeakBytes(json{{"na", "x"}}), std::nullopt);
  // "max" (no cap) is text, not a cap.
  EXPECT_EQ(TierCapBytes(ParseTierReading("memory.max max\n")), std::nullopt);
  const json killed = {{"memory.peak", 10}, {"memory.max", 10}, {"memory.events.oom_kill", 1}};
  EXPECT_TRUE(OomKilled(v2, killed));
  EXPECT_FALSE(OomKilled(killed, killed));
}

TEST(CgroupTier, NamesSayWhoseCgroupsTheyAre) {
  EXPECT_EQ(TierHostTag("board-1").size(), 8u);
  EXPECT_EQ(TierHostTag("board-1"), TierHostTag("board-1"));
  EXPECT_NE(TierHostTag("board-1"), TierHostTag("board-2"));
  EXPECT_EQ(TierHostTag(""), "811c9dc5");  // FNV-1a's offset basis: the hash is FNV-1a
  // A controller's: its host's eight digits, then its boot's.
  const auto self = ProcessIdentity::Of("host-a", "m1", "b1", 4242, 987654, "pid:[1]");
  const std::string tag = TierHostTag(self);
  EXPECT_EQ(tag, TierHostTag("host-a\nm1\npid:[1]") + TierHostTag("b1"));
  const std::string name = TierCgroupName(tag, 4242, 987654, 1700000000000, 3);
  EXPECT_EQ(name, "pipette-" + tag + "-4242-987654-1700000000000-3");
  auto owner = TierCgroupOwner("/sys/fs/cgroup/memory/x/" + name);
  ASSERT_TRUE(owner.has_value());
  EXPECT_EQ(owner->host_tag, tag);
  EXPECT_EQ(owner->pid, 4242);
  EXPECT_EQ(owner->start_ticks, 987654);
  const std::string z = "0000000000000000";
  for (const std::string& other : std::vector<std::string>{
           "/a/pipette-4242-1-1", "/a/pipette-zzzzzzzzzzzzzzzz-1-1-1-1", "/a/other",
           "/a/pipette-00000000-1-1-1-1",  // an eight-digit tag: an older Pipette's
           "/a/pipette-" + z + "-1-x-1-1", "/a/pipette-" + z + "-1-1-1",
           "/a/pipette-" + z + "-99999999-1-1-1",  // too long for a pid (never out of range)
           "/a/pipette-" + z + "-1-1-1-9999999999999999999999"}) {
    EXPECT_FALSE(TierCgroupOwner(other).has_value()) << other;
  }
  EXPECT_EQ(ParseTierList("/c/pipette-a\n/c/pipette-a\n\n/m/pipette-a\nnoise\n"),
            (std::vector<std::string>{"/c/pipette-a", "/m/pipette-a"}));
  // v1: anywhere in the hierarchy; v2: the root.
  EXPECT_NE(TierListScript().find("find \"$m\" -maxdepth 8 -type d -name 'pipette-*'"),
            std::string::npos);
}

TEST(CgroupTier, TheVersionsScriptAsksForTheControllersTheTierUses) {
  Tier quota;
  quota.cpu_quota = 0.5;
  const std::string s = TierVersionsScript(quota);
  EXPECT_NE(s.find("base cpu 2>/dev/null"), std::string::npos);
  EXPECT_NE(s.find("echo 'cpu v2'"), std::string::npos);
  EXPECT_EQ(s.find("base memory"), std::string::npos);
  EXPECT_EQ(s.find("base cpuset"), std::string::npos);
}

TEST(CgroupTier, AV2CpusetMustBeInEffectAsAsked) {
  Tier t;
  t.cpus = {3, 0, 1, 2, 7};
  const std::string s = TierCreateScript(t, "n");
  EXPECT_NE(s.find("put \"$S/${P}cpus\" 0-3,7"), std::string::npos) << s;
  EXPECT_NE(s.find("[ \"$e\" = 0-3,7 ] || fail"), std::string::npos) << s;
  // v1's effective_cpus too, where the kernel keeps one (cpuset_v2_mode falls back as v2 does).
  EXPECT_NE(s.find("F=\"$S/${P}effective_cpus\""), std::string::npos) << s;
  EXPECT_NE(TierReadScript({{"cpuset", "/s"}}, 1, false).find("cpuset.cpus.effective"),
            std::string::npos);
}

TEST(CgroupTier, CpuListsAreTheKernelsRanges) {
  EXPECT_EQ(FormatCpuList({0}), "0");
  EXPECT_EQ(FormatCpuList({5, 0, 1, 2, 1}), "0-2,5");
  EXPECT_EQ(FormatCpuList({0, 2, 4}), "0,2,4");
  EXPECT_EQ(ParseCpuList("0"), (std::vector<int>{0}));
  EXPECT_EQ(ParseCpuList("0-2,5"), (std::vector<int>{0, 1, 2, 5}));
  EXPECT_EQ(ParseCpuList("5,0-1,1"), (std::vector<int>{0, 1, 5}));
  for (const char* bad : {"", "a", "2-1", "0,", "-1", "0-", "1 2"}) {
    EXPECT_FALSE(ParseCpuList(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace pipette::env
