#include "pipette/device/tiered_device.h"

#include <gtest/gtest.h>

#include "pipette/testing/fake_device.h"

namespace pipette::device {
namespace {

// The shell of the device under the tier, as cgroups would answer it: each script recorded in
// `log` (kept by the test: it outlives the device, which the tier owns), the cgroups it "makes"
// printed back.
struct CgroupShell {
  std::vector<std::string> log;
  bool refuse_create = false;
  std::string listed;  // what the list script prints

  Result<std::string> operator()(const std::string& script) {
    log.push_back(script);
    if (script.find("mk memory") != std::string::npos) {
      if (refuse_create) return RuntimeError("cannot make the cgroup (cgroups need root)");
      const size_t at = script.find("mk memory ") + 10;
      const std::string name = script.substr(at, script.find(';', at) - at);
      return "cgroup memory /sys/fs/cgroup/memory/" + name + "\n";
    }
    if (script.find("for c in cpuset cpu memory") != std::string::npos) return listed;
    if (script.find("memory.max_usage_in_bytes") != std::string::npos) {
      return std::string("memory.max_usage_in_bytes 1000\nmemory.oom_control.oom_kill 0\n");
    }
    return std::string();
  }
};

// Workers not started: their channel is none (the tier test reads only their preludes).
class NoWorkers : public worker::WorkerLauncher {
 public:
  Result<std::unique_ptr<worker::WorkerChannel>> Launch(const std::vector<std::string>&) override {
    return std::unique_ptr<worker::WorkerChannel>();
  }
};

// A fake device (testing/fake_device.h) whose shell is `shell`; both must outlive it.
std::unique_ptr<testing::FakeDevice> Scripted(CgroupShell* shell, NoWorkers* workers) {
  auto d = std::make_unique<testing::FakeDevice>(workers);
  d->shell = [shell](const std::string& script) { return (*shell)(script); };
  return d;
}

env::Tier Capped() {
  env::Tier t;
  t.memory_bytes = int64_t{64} << 20;
  return t;
}

TEST(TieredDevice, EachWorkerStartsInsideFreshCgroupsAndTheLastOnesAreRemoved) {
  CgroupShell shell;
  NoWorkers workers;
  std::vector<std::string>& log = shell.log;
  auto inner = Scripted(&shell, &workers);
  testing::FakeDevice* d = inner.get();
  {
    TieredDevice tiered(std::move(inner), Capped(), "tiny");
    EXPECT_EQ(tiered.Name(), "tiny");
    // No worker yet: nothing to read.
    EXPECT_FALSE(tiered.TierReading(1, false).ok());
    ASSERT_TRUE(tiered.StartWorker({"/w"}).ok());
    ASSERT_EQ(d->preludes.size(), 1u);
    // The worker's shell joins the cgroup the create script printed, before it becomes the worker.
    EXPECT_NE(d->preludes[0].find("/sys/fs/cgroup/memory/pipette-"), std::string::npos);
    EXPECT_NE(d->preludes[0].find("cgroup.procs"), std::string::npos);
    auto reading = tiered.TierReading(77, true);
    ASSERT_TRUE(reading.ok()) << reading.error().message;
    EXPECT_EQ((*reading)["memory.max_usage_in_bytes"], 1000);
    EXPECT_NE(log.back().find("echo 0 >"), std::string::npos);  // the peak reset
    EXPECT_NE(log.back().find("/proc/77/status"), std::string::npos);

    // The next worker: the first one's cgroups removed, new ones made with another name.
    ASSERT_TRUE(tiered.StartWorker({"/w"}).ok());
    ASSERT_EQ(d->preludes.size(), 2u);
    EXPECT_NE(d->preludes[0], d->preludes[1]);
    bool removed = false;
    for (const std::string& s : log) removed = removed || s.find("rmdir") != std::string::npos;
    EXPECT_TRUE(removed);
    log.clear();
  }
  // Closing the device removes the last worker's cgroups.
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("rmdir"), std::string::npos);
}

TEST(TieredDevice, ATierTheDeviceRefusesFailsTheStartSayingWhichTier) {
  CgroupShell shell;
  NoWorkers workers;
  shell.refuse_create = true;
  auto inner = Scripted(&shell, &workers);
  testing::FakeDevice* d = inner.get();
  TieredDevice tiered(std::move(inner), Capped(), "tiny");
  auto started = tiered.StartWorker({"/w"});
  ASSERT_FALSE(started.ok());
  EXPECT_EQ(started.error().message,
            "device tiny: cannot apply its tier (emulated tier: memory 64.00 MiB): cannot make the "
            "cgroup (cgroups need root)");
  EXPECT_TRUE(d->preludes.empty());  // no worker runs outside its limits
}

// The cgroups of a dead controller of this host are removed before the first worker starts: one of
// an earlier boot, one whose pid no process has, or whose pid a later process has; a live
// controller's (and this one's own) and another host's are left alone, as are those whose start
// time cannot be read.
TEST(TieredDevice, TheFirstStartSweepsTheCgroupsOfThisHostsDeadControllers) {
  const auto self = env::ProcessIdentity::Of("host-a", "m1", "b1", 100, 5000, "pid:[1]");
  auto processes = std::make_unique<env::FakeProcessTable>(self);
  processes->Start(200, 7000);  // a live controller
  processes->Start(300, 9000);  // a pid used again since its controller ended
  processes->Hide(500);         // runs, its start time unreadable
  const std::string tag = env::TierHostTag(self);
  const std::string own = "/m/" + env::TierCgroupName(tag, 100, 5000, 1, 1);
  const std::string live = "/m/" + env::TierCgroupName(tag, 200, 7000, 1, 1);
  const std::string reused = "/m/" + env::TierCgroupName(tag, 300, 8000, 1, 1);
  const std::string dead = "/m/" + env::TierCgroupName(tag, 400, 1000, 1, 1);
  const std::string hidden = "/m/" + env::TierCgroupName(tag, 500, 1000, 1, 1);
  // Another host's, whose pids this one cannot judge; this host's earlier boot's, ended.
  const std::string elsewhere =
      "/m/" + env::TierCgroupName(
                  env::TierHostTag(env::ProcessIdentity::Of("host-b", "m2", "b1", 1, 1, "pid:[1]")),
                  400, 1, 1, 1);
  const std::string earlier_boot =
      "/m/" + env::TierCgroupName(
                  env::TierHostTag(env::ProcessIdentity::Of("host-a", "m1", "b0", 1, 1, "pid:[1]")),
                  200, 7000, 1, 1);
  // A controller whose start time was unreadable when it named its cgroups.
  const std::string unknown_start = "/m/" + env::TierCgroupName(tag, 400, 0, 1, 1);

  CgroupShell shell;
  NoWorkers workers;
  std::vector<std::string>& log = shell.log;
  auto inner = Scripted(&shell, &workers);
  for (const std::string& f :
       {own, live, reused, dead, hidden, elsewhere, earlier_boot, unknown_start}) {
    shell.listed += f + "\n";
  }
  shell.listed += "/m/pipette-not-ours\n";
  TieredDevice tiered(std::move(inner), Capped(), "tiny", std::move(processes));
  ASSERT_TRUE(tiered.StartWorker({"/w"}).ok());
  std::vector<std::string> removals;
  for (const std::string& s : log) {
    if (s.starts_with("for d in ") && s.find("rmdir") != std::string::npos) removals.push_back(s);
  }
  ASSERT_EQ(removals.size(), 1u);
  EXPECT_NE(removals[0].find(reused), std::string::npos);
  EXPECT_NE(removals[0].find(dead), std::string::npos);
  EXPECT_NE(removals[0].find(earlier_boot), std::string::npos);
  for (const std::string& kept : {own, live, hidden, elsewhere, unknown_start}) {
    EXPECT_EQ(removals[0].find(kept), std::string::npos) << kept;
  }
  EXPECT_EQ(removals[0].find("pipette-not-ours"), std::string::npos);
  // This worker's cgroups are named for this controller.
  bool named = false;
  for (const std::string& s : log)
    named = named || s.find("pipette-" + tag + "-100-5000-") != std::string::npos;
  EXPECT_TRUE(named);
  // Once: the next worker's start does not list again.
  const size_t lists = log.size();
  ASSERT_TRUE(tiered.StartWorker({"/w"}).ok());
  for (size_t i = lists; i < log.size(); ++i) {
    EXPECT_EQ(log[i].find("for c in cpuset cpu memory"), std::string::npos);
  }
}

}  // namespace
}  // namespace pipette::device
