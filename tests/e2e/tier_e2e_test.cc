// Emulated tiers through `pipette run`, for real: this machine's cgroup v1 cpuset, cpu and memory
// controllers (writable here, as root) limit the worker of each tier's cells. The tests check the
// mechanism, not the speed: the quota shows in the cgroup's throttling counter, a cpuset of one
// CPU in the worker's affinity, a cell over its memory cap becomes `oom` with the peak it reached,
// and every output says `emulated tier`.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <sstream>
#include <thread>

#include "fixture.h"
#include "pipette/env/cgroup_tier.h"
#include "pipette/env/process.h"

namespace pipette_e2e {
namespace {

// This process's own cgroup in `controller`'s v1 hierarchy.
fs::path OwnCgroup(const std::string& controller) {
  std::istringstream lines(ReadFile("/proc/self/cgroup"));
  std::string line;
  while (std::getline(lines, line)) {
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    // "4:memory:/path", or a hierarchy of several controllers ("2:cpu,cpuacct:/path").
    const std::string controllers = "," + line.substr(a + 1, b - a - 1) + ",";
    if (controllers.find("," + controller + ",") == std::string::npos) continue;
    return fs::path("/sys/fs/cgroup") / controllers.substr(1, controllers.size() - 2) /
           line.substr(b + 2);
  }
  return {};
}

// The folders this process's cgroups hold now in `controller`'s v1 hierarchy.
std::set<std::string> Cgroups(const std::string& controller) {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(OwnCgroup(controller), ec)) {
    if (e.is_directory()) out.insert(e.path().string());
  }
  return out;
}

class TierE2E : public E2E {
 protected:
  void SetUp() override {
    for (const char* c : {"cpu", "cpuset", "memory"}) {
      const std::string dir = std::string("/sys/fs/cgroup/") + c;
      if (::geteuid() != 0 || ::access(dir.c_str(), W_OK) != 0) {
        GTEST_SKIP() << "tiers need cgroup v1's " << c << " controller writable (as root) at "
                     << dir;
      }
    }
    E2E::SetUp();
  }
};

TEST_F(TierE2E, QuotaCpusetAndMemoryCapApplyToTheWorker) {
  const auto before = Cgroups("memory");
  const auto before_cpu = Cgroups("cpu");
  const auto before_cpuset = Cgroups("cpuset");
  const fs::path ex = Write("ex.yaml",
                            "models: [smollm2-135m-instruct-q4_1]\n"
                            "devices:\n"
                            "  - name: low\n"
                            "    local:\n"
                            "    tier: {cpus: [0], cpu_quota: 0.3, memory: 1GiB}\n"
                            "  - name: tiny\n"
                            "    local:\n"
                            "    tier: {memory: 48MiB}\n"
                            "params: {threads: 1, n_ctx: 256, use_mmap: false}\n"
                            "tests: [tg8]\n"
                            "repetitions: 2\n"
                            "warmup: 0\n");
  Output run = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  // The oom cell fails; the other is measured.
  EXPECT_EQ(run.code, 1) << run.out << run.err;

  // low: the quota throttled its worker, which ran on CPU 0 alone.
  auto low = Samples(1, "tier");
  ASSERT_EQ(low.size(), 1u) << run.err;
  const json& start = low[0].raw["start"];
  const json& end = low[0].raw["end"];
  EXPECT_GT(end["cpu.nr_throttled"].get<int64_t>(), start["cpu.nr_throttled"].get<int64_t>())
      << end.dump();
  EXPECT_GT(end["cpu.throttled_time"].get<int64_t>(), 0);
  EXPECT_EQ(end["cpuset.cpus"], "0");
  EXPECT_EQ(end["worker.cpus_allowed_list"], "0");
  EXPECT_EQ(end["memory.limit_in_bytes"], int64_t{1} << 30);
  EXPECT_EQ(Samples(1, "tg8").size(), 2u);

  // tiny: over its 48 MiB cap, the kernel killed the worker: `oom`, with the peak.
  auto st = pipette::store::Store::Open(Store());
  ASSERT_TRUE(st.ok());
  auto cells = (*st)->Cells(1);
  ASSERT_TRUE(cells.ok());
  ASSERT_EQ(cells->size(), 2u);
  EXPECT_EQ((*cells)[0].status, "ok");
  EXPECT_EQ((*cells)[1].status, "oom");
  EXPECT_NE((*cells)[1].error.find("over its tier's memory cap of 48.00 MiB: the kernel killed "
                                   "the worker at a peak of"),
            std::string::npos)
      << (*cells)[1].error;
  auto tiny = Samples(2, "tier");
  ASSERT_EQ(tiny.size(), 1u);
  EXPECT_GT(tiny[0].raw["end"]["memory.oom_control.oom_kill"].get<int64_t>(), 0);
  EXPECT_GE(tiny[0].raw["end"]["memory.max_usage_in_bytes"].get<int64_t>(), int64_t{40} << 20);

  // Every output names the tier; the cells' own cgroups are gone.
  Output md = Pipette({"report", "--store", Store(), "--format", "md"});
  ASSERT_EQ(md.code, 0) << md.err;
  EXPECT_NE(md.out.find("low: "), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("(emulated tier: cpus 0, quota 0.3 CPU, memory 1.00 GiB)"),
            std::string::npos)
      << md.out;
  EXPECT_NE(md.out.find("cell 2 oom: over its tier's memory cap"), std::string::npos) << md.out;
  for (const char* format : {"csv", "json", "jsonl", "sql"}) {
    Output o = Pipette({"report", "--store", Store(), "--format", format});
    ASSERT_EQ(o.code, 0) << o.err;
    EXPECT_NE(o.out.find("emulated tier: cpus 0"), std::string::npos) << format;
  }
  EXPECT_EQ(Cgroups("memory"), before);
  EXPECT_EQ(Cgroups("cpu"), before_cpu);
  EXPECT_EQ(Cgroups("cpuset"), before_cpuset);
}

// A controller killed outright (SIGKILL: nothing of it runs after) leaves its worker's cgroups; the
// next run of a tier on this host sweeps them wherever they are in the hierarchy (the killed run
// ran in a cgroup of its own, as a login session or a service does), and leaves those named for
// another host alone.
TEST_F(TierE2E, TheCgroupsOfAKilledControllerAreSweptByTheNextRun) {
  const auto before = Cgroups("memory");
  // The first run's own memory cgroup, beside this test's.
  const fs::path session =
      OwnCgroup("memory") / ("pipette-e2e-session-" + std::to_string(::getpid()));
  const fs::path other = session.parent_path() / "pipette-0000000000000000-1-1-1-1";
  // Whatever happens, the test leaves no process or cgroup of its own behind: the run (in the
  // session's cgroup) and its worker (in a tier's under it) are killed and every cgroup removed.
  struct Cleanup {
    fs::path session, other;
    ~Cleanup() {
      std::error_code ec;
      std::vector<fs::path> groups = {session};
      for (const auto& e : fs::recursive_directory_iterator(session, ec)) {
        if (e.is_directory()) groups.push_back(e.path());
      }
      for (const fs::path& g : groups) {
        std::istringstream procs(ReadFile(g / "cgroup.procs"));
        for (int pid; procs >> pid;) ::kill(pid, SIGKILL);
      }
      for (int i = 0; i < 50 && fs::exists(session); ++i) {
        for (const auto& e : fs::directory_iterator(session, ec)) ::rmdir(e.path().c_str());
        ::rmdir(session.c_str());
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      ::rmdir(other.c_str());
    }
  } cleanup{session, other};
  ASSERT_TRUE(fs::create_directory(session)) << session;
  // A tier of this machine: its `test` repeated `repetitions` times.
  auto experiment = [&](const std::string& file, const std::string& test, int repetitions) {
    return Write(file,
                 "models: [smollm2-135m-instruct-q4_1]\n"
                 "devices:\n"
                 "  - name: small\n"
                 "    local:\n"
                 "    tier: {memory: 1GiB}\n"
                 "params: {threads: 1, n_ctx: 256}\n"
                 "tests: [" +
                     test + "]\nrepetitions: " + std::to_string(repetitions) + "\nwarmup: 0\n");
  };
  const fs::path ex = experiment("ex.yaml", "tg64", 50);
  const pid_t pid =
      Spawn({"/bin/sh", "-c", "echo $$ > \"$0/cgroup.procs\" && exec \"$@\"", session.string(),
             kPipette, "run", ex.string(), "--store", Store(), "--no-bandwidth"},
            dir_ / "stdout", dir_ / "stderr");
  started_.push_back(pid);
  // Killed once its worker runs in the tier's cgroup, under the run's own.
  std::string killed;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (killed.empty() && std::chrono::steady_clock::now() < deadline) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(session, ec)) {
      if (e.is_directory() && !ReadFile(e.path() / "cgroup.procs").empty()) killed = e.path();
    }
    if (::waitpid(pid, nullptr, WNOHANG) == pid) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(killed.empty()) << ReadFile(dir_ / "stderr");
  auto owner = pipette::env::TierCgroupOwner(killed);
  ASSERT_TRUE(owner.has_value()) << killed;
  EXPECT_EQ(owner->host_tag, pipette::env::TierHostTag(pipette::env::LinuxProcessTable().Self()));
  EXPECT_EQ(owner->pid, pid);
  ::kill(pid, SIGKILL);
  Wait(pid);
  // Its worker ends at its stdin's end; the cgroup stays.
  const auto gone = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!ReadFile(fs::path(killed) / "cgroup.procs").empty() &&
         std::chrono::steady_clock::now() < gone) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(fs::is_directory(killed));
  // Another host's controller's cgroup, which this host cannot tell alive or dead.
  ASSERT_TRUE(fs::create_directory(other));

  const fs::path again = experiment("again.yaml", "tg4", 1);
  Output run = Pipette({"run", again.string(), "--store", dir_ / "again.db", "--no-bandwidth"});
  EXPECT_EQ(run.code, 0) << run.out << run.err;
  EXPECT_FALSE(fs::exists(killed));
  EXPECT_TRUE(fs::is_directory(other));
  // Nothing else of the second run's is left.
  auto now = Cgroups("memory");
  now.erase(session.string());
  now.erase(other.string());
  EXPECT_EQ(now, before);
}

// sustained<T> in a tier with a cpuset: the frequency it samples is the mean over the CPUs the
// worker may run on, not over the machine's (the fake sysfs tree's CPU 1 runs at 2.4 GHz, CPU 0
// at 1.8).
TEST_F(TierE2E, SustainedSamplesTheFrequencyOfTheTiersCpus) {
  setenv("PIPETTE_SYSFS_ROOT", (kSource + "/tests/data/fake-sysfs").c_str(), 1);
  struct Unset {
    ~Unset() { unsetenv("PIPETTE_SYSFS_ROOT"); }
  } unset;
  const fs::path ex = Write("ex.yaml",
                            "models: [smollm2-135m-instruct-q4_1]\n"
                            "devices:\n"
                            "  - name: one-cpu\n"
                            "    local:\n"
                            "    tier: {cpus: [1]}\n"
                            "params: {threads: 1, n_ctx: 512}\n"
                            "tests: [sustained20]\n"
                            "repetitions: 1\n"
                            "warmup: 0\n");
  Output run = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  ASSERT_EQ(run.code, 0) << run.out << run.err;
  const auto runs = Samples(1, "sustained20");
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_FALSE(runs[0].raw["chunks"].empty());
  for (const json& c : runs[0].raw["chunks"]) {
    EXPECT_EQ(c["sensors"]["freq_mhz"], 2400.0) << c.dump();
    EXPECT_EQ(c["sensors"]["freq_cpus"], "1") << c.dump();
  }
}

}  // namespace
}  // namespace pipette_e2e
