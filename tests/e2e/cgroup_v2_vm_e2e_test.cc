// Emulated tiers on a kernel with cgroup v2 alone (recent Ubuntu, Fedora, Raspberry Pi OS), for
// real: this machine's cpu, cpuset and memory controllers are cgroup v1's, so the test boots a
// Debian kernel in QEMU (software emulation, 2 CPUs, no swap) with a static busybox as its whole
// userland, the sh a small board has too (scripts/fetch-test-vm.sh fetches both). There
// it runs the very scripts a tier runs through a device's shell (env/cgroup_tier.h): make the
// cgroups, start a "worker" the way a device does (its shell joins them, then execs it), read the
// counters, and remove them. It checks the mechanism, as the v1 tests do: the quota shows in
// cpu.stat's throttling counter, a cpuset of one CPU in the worker's affinity, a worker over its
// memory cap is killed by the kernel and counted in memory.events (OomKilled), and nothing is
// left.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <sstream>

#include "fixture.h"
#include "pipette/env/cgroup_tier.h"

namespace pipette_e2e {
namespace {

namespace env = pipette::env;

const fs::path kKernel = fs::path(kSource) / ".deps/vm/vmlinuz";
const fs::path kBusybox = fs::path(kSource) / ".deps/vm/busybox";
// The pid the read scripts are made for, replaced in the VM by the worker's own.
constexpr int64_t kPidMark = 999999;
// cgroup v2 alone; and a hybrid system: v1's cpuset and cpu, v2 (with memory) beside them, as
// systemd's hybrid layout mounts it.
const std::string kV2Alone = "mount -t cgroup2 none /sys/fs/cgroup\n";
const std::string kHybrid =
    "mount -t tmpfs none /sys/fs/cgroup\n"
    "mkdir -p /sys/fs/cgroup/cpuset /sys/fs/cgroup/cpu /sys/fs/cgroup/unified\n"
    "mount -t cgroup -o cpuset none /sys/fs/cgroup/cpuset\n"
    "mount -t cgroup -o cpu none /sys/fs/cgroup/cpu\n"
    "mount -t cgroup2 none /sys/fs/cgroup/unified\n";

// What one step printed and its exit status.
struct Step {
  std::string out;
  int rc = -1;
};

// The console's "@@begin NAME" ... "@@end NAME RC" sections.
std::map<std::string, Step> Steps(const std::string& console) {
  std::map<std::string, Step> steps;
  std::istringstream in(console);
  std::string line, current;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.starts_with("@@begin ")) {
      current = line.substr(8);
      steps[current] = Step{};
    } else if (line.starts_with("@@end ") && !current.empty()) {
      steps[current].rc = std::stoi(line.substr(line.rfind(' ') + 1));
      current.clear();
    } else if (!current.empty()) {
      steps[current].out += line + "\n";
    }
  }
  return steps;
}

class CgroupV2Vm : public E2E {
 protected:
  void SetUp() override {
    E2E::SetUp();
    ASSERT_TRUE(fs::exists(kKernel)) << "run scripts/fetch-test-vm.sh first: " << kKernel;
    ASSERT_TRUE(fs::exists(kBusybox)) << "run scripts/fetch-test-vm.sh first: " << kBusybox;
  }

  // Writes a file of the VM's root folder.
  void Put(const std::string& path, const std::string& text) {
    const fs::path p = dir_ / "root" / path;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
  }

  // Boots the VM with `steps` (name, shell command) run in order by its init, and returns what
  // each printed. The init mounts the cgroups as `mounts` says: by default cgroup v2 alone at
  // /sys/fs/cgroup, as such systems do. Two CPUs.
  std::map<std::string, Step> Boot(const std::vector<std::pair<std::string, std::string>>& steps,
                                   const std::string& mounts = kV2Alone) {
    std::string init =
        "#!/bin/busybox sh\n"
        "/bin/busybox mkdir -p /proc /sys /dev /tmp\n"
        "/bin/busybox --install -s /bin\n"
        "export PATH=/bin\n"
        "mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev\n" +
        mounts +
        "step() { n=$1; shift; echo \"@@begin $n\"; \"$@\" > /tmp/o 2>&1; rc=$?; cat /tmp/o; "
        "echo \"@@end $n $rc\"; }\n";
    for (const auto& [name, command] : steps) init += "step " + name + " " + command + "\n";
    init += "poweroff -f\n";
    Put("init", init);
    fs::permissions(dir_ / "root/init", fs::perms::owner_all, fs::perm_options::add);
    fs::create_directories(dir_ / "root/bin");
    fs::copy_file(kBusybox, dir_ / "root/bin/busybox", fs::copy_options::overwrite_existing);
    Output cpio = Program({"/bin/sh", "-c",
                           "cd '" + (dir_ / "root").string() +
                               "' && find . | cpio -o -H newc --quiet > ../initrd.cpio"});
    EXPECT_EQ(cpio.code, 0) << cpio.out;
    // No KVM: nested virtualisation is not something a CI machine can be counted on to have.
    Output vm = Program({"timeout",
                         "300",
                         "qemu-system-x86_64",
                         "-accel",
                         "tcg",
                         "-m",
                         "256M",
                         "-smp",
                         "2",
                         "-nodefaults",
                         "-display",
                         "none",
                         "-serial",
                         "stdio",
                         "-no-reboot",
                         "-kernel",
                         kKernel.string(),
                         "-initrd",
                         (dir_ / "initrd.cpio").string(),
                         "-append",
                         "console=ttyS0 loglevel=0 panic=-1"});
    EXPECT_EQ(vm.code, 0) << vm.out;
    console_ = vm.out;
    return Steps(vm.out);
  }

  std::string console_;
};

TEST_F(CgroupV2Vm, ATiersScriptsLimitTheWorkerOnAKernelWithCgroupV2Alone) {
  env::Tier tier;
  tier.cpus = {1};
  tier.cpu_quota = 0.5;
  tier.memory_bytes = int64_t{32} << 20;
  const std::string name =
      env::TierCgroupName(env::TierHostTag("vm") + env::TierHostTag("boot"), 1, 2, 3, 4);
  const std::string folder = "/sys/fs/cgroup/" + name;
  // What the create script makes there: one v2 folder at the root for all three controllers.
  const env::TierCgroups cgroups = {{"cpuset", folder}, {"cpu", folder}, {"memory", folder}};

  Put("t/create.sh", env::TierCreateScript(tier, name));
  // A worker starts as a device starts it: its shell joins the cgroups, then execs it.
  Put("t/launch.sh", env::TierJoinPrelude(cgroups) + "\nexec \"$@\"\n");
  const std::string mark = "/proc/" + std::to_string(kPidMark) + "/";
  Put("t/read-reset.sh", env::TierReadScript(cgroups, kPidMark, true));
  Put("t/read.sh", env::TierReadScript(cgroups, kPidMark, false));
  Put("t/list.sh", env::TierListScript());
  Put("t/remove.sh", env::TierRemoveScript(cgroups));
  // The reading of a running worker: the read script made for its pid.
  Put("t/read-worker.sh", "sed \"s#" + mark + "#/proc/$1/#\" /t/$2 > /tmp/r.sh && sh /tmp/r.sh\n");
  // A spinning worker for two seconds (its quota and cpuset), then one that reads 64 MiB into
  // memory under the 32 MiB cap (busybox dd allocates its block and fills it).
  Put("t/spin.sh",
      "sh /t/launch.sh sh -c 'while :; do :; done' & w=$!\n"
      "sleep 0.5; sh /t/read-worker.sh $w read-reset.sh > /tmp/first\n"
      "sleep 2; sh /t/read-worker.sh $w read.sh; kill $w; wait $w 2>/dev/null; true\n");
  Put("t/hog.sh", "sh /t/launch.sh dd if=/dev/zero of=/dev/null bs=64M count=1\n");
  Put("t/gone.sh", "[ ! -d '" + folder + "' ] && echo gone\n");
  Put("t/versions.sh", env::TierVersionsScript(tier));
  // CPU 1 taken offline (as a phone's hotplug does): v2 takes the cpuset and runs it on the
  // parent's CPUs; the tier refuses.
  env::Tier offline;
  offline.cpus = {1};
  Put("t/offline.sh", "echo 0 > /sys/devices/system/cpu/cpu1/online || exit 9\n" +
                          env::TierCreateScript(offline, "pipette-offline"));
  Put("t/offline-gone.sh", "[ ! -d /sys/fs/cgroup/pipette-offline ] && echo gone\n");

  auto steps = Boot({{"kernel", "uname -r"},
                     {"mounts", "cat /proc/self/mounts"},
                     {"create", "sh /t/create.sh"},
                     {"spin", "sh /t/spin.sh"},
                     {"first", "cat /tmp/first"},
                     {"hog", "sh /t/hog.sh"},
                     {"after", "sh /t/read.sh"},
                     {"list", "sh /t/list.sh"},
                     {"remove", "sh /t/remove.sh"},
                     {"gone", "sh /t/gone.sh"},
                     {"versions", "sh /t/versions.sh"},
                     {"offline", "sh /t/offline.sh"},
                     {"offline_gone", "sh /t/offline-gone.sh"}});
  ASSERT_EQ(steps.size(), 13u) << console_;
  // The kernel booted: memory.peak needs Linux 5.19 or later.
  std::cout << "booted " << steps["kernel"].out;
  int major = 0, minor = 0;
  ASSERT_EQ(std::sscanf(steps["kernel"].out.c_str(), "%d.%d", &major, &minor), 2);
  EXPECT_GE(major * 100 + minor, 519) << steps["kernel"].out;
  EXPECT_EQ(steps["versions"].out, "cpuset v2\ncpu v2\nmemory v2\n");

  // Made, and said where.
  ASSERT_EQ(steps["create"].rc, 0) << steps["create"].out;
  auto made = env::ParseTierCgroups(steps["create"].out);
  ASSERT_TRUE(made.ok()) << made.error().message;
  EXPECT_EQ(*made, cgroups);

  // The spinning worker: throttled by its quota, on CPU 1 alone.
  ASSERT_EQ(steps["spin"].rc, 0) << steps["spin"].out;
  const json first = env::ParseTierReading(steps["first"].out);
  const json spun = env::ParseTierReading(steps["spin"].out);
  EXPECT_GT(spun["cpu.nr_throttled"].get<int64_t>(), first["cpu.nr_throttled"].get<int64_t>())
      << spun.dump();
  EXPECT_GT(spun["cpu.throttled_usec"].get<int64_t>(), 0) << spun.dump();
  EXPECT_EQ(spun["cpuset.cpus"], "1") << spun.dump();
  EXPECT_EQ(spun["worker.cpus_allowed_list"], "1") << spun.dump();
  EXPECT_EQ(env::TierCapBytes(spun), int64_t{32} << 20) << spun.dump();
  EXPECT_EQ(spun["memory.peak_scope"], "worker");  // v2's peak cannot be reset

  // The worker over its cap: killed by the kernel, which the oom test reads from the counters.
  EXPECT_NE(steps["hog"].rc, 0) << steps["hog"].out;
  const json after = env::ParseTierReading(steps["after"].out);
  EXPECT_TRUE(env::OomKilled(spun, after)) << after.dump();
  EXPECT_GE(after["memory.events.oom_kill"].get<int64_t>(), 1) << after.dump();
  ASSERT_TRUE(env::TierPeakBytes(after).has_value()) << after.dump();
  EXPECT_GE(*env::TierPeakBytes(after), int64_t{28} << 20) << after.dump();
  EXPECT_FALSE(env::OomKilled(after, after));

  // The sweep's listing finds it; removed, nothing is left.
  EXPECT_EQ(env::ParseTierList(steps["list"].out), std::vector<std::string>{folder});
  EXPECT_EQ(steps["remove"].rc, 0) << steps["remove"].out;
  EXPECT_EQ(steps["gone"].out, "gone\n");

  // An offline CPU: refused, saying which CPUs would be in effect, and nothing left.
  EXPECT_EQ(steps["offline"].rc, 4) << steps["offline"].out;
  EXPECT_NE(steps["offline"].out.find("the cpuset 1 is in effect as '0'"), std::string::npos)
      << steps["offline"].out;
  EXPECT_EQ(steps["offline_gone"].out, "gone\n");
}

// A hybrid system (this development machine is one): the controllers v1 has come from v1, the
// memory controller from v2, each in its own folder; the worker joins both.
TEST_F(CgroupV2Vm, OnAHybridSystemEachControllerComesFromTheVersionThatHasIt) {
  env::Tier tier;
  tier.cpus = {1};
  tier.cpu_quota = 0.5;
  tier.memory_bytes = int64_t{32} << 20;
  const std::string name =
      env::TierCgroupName(env::TierHostTag("vm") + env::TierHostTag("boot"), 1, 2, 3, 4);
  const env::TierCgroups expected = {{"cpuset", "/sys/fs/cgroup/cpuset/" + name},
                                     {"cpu", "/sys/fs/cgroup/cpu/" + name},
                                     {"memory", "/sys/fs/cgroup/unified/" + name}};
  Put("t/create.sh", env::TierCreateScript(tier, name));
  Put("t/versions.sh", env::TierVersionsScript(tier));
  Put("t/launch.sh", env::TierJoinPrelude(expected) + "\nexec \"$@\"\n");
  Put("t/read.sh", env::TierReadScript(expected, kPidMark, true));
  Put("t/remove.sh", env::TierRemoveScript(expected));
  Put("t/spin.sh",
      "sh /t/launch.sh sh -c 'while :; do :; done' & w=$!\n"
      "sleep 2; sed \"s#/proc/" +
          std::to_string(kPidMark) +
          "/#/proc/$w/#\" /t/read.sh > /tmp/r.sh; sh /tmp/r.sh; kill $w; wait $w; "
          "true\n");
  auto steps = Boot({{"versions", "sh /t/versions.sh"},
                     {"create", "sh /t/create.sh"},
                     {"spin", "sh /t/spin.sh"},
                     {"remove", "sh /t/remove.sh"},
                     {"left", "ls -d /sys/fs/cgroup/*/pipette-*"}},
                    kHybrid);
  ASSERT_EQ(steps.size(), 5u) << console_;
  EXPECT_EQ(steps["versions"].out, "cpuset v1\ncpu v1\nmemory v2\n");
  ASSERT_EQ(steps["create"].rc, 0) << steps["create"].out;
  auto made = env::ParseTierCgroups(steps["create"].out);
  ASSERT_TRUE(made.ok()) << made.error().message;
  EXPECT_EQ(*made, expected);
  const json spun = env::ParseTierReading(steps["spin"].out);
  // v1's cpu counts throttled time in ns; the memory reading is v2's.
  EXPECT_GT(spun["cpu.nr_throttled"].get<int64_t>(), 0) << spun.dump();
  EXPECT_GT(spun["cpu.throttled_time"].get<int64_t>(), 0) << spun.dump();
  EXPECT_EQ(spun["worker.cpus_allowed_list"], "1") << spun.dump();
  EXPECT_EQ(env::TierCapBytes(spun), int64_t{32} << 20) << spun.dump();
  EXPECT_EQ(spun["memory.peak_scope"], "worker") << spun.dump();
  EXPECT_EQ(steps["remove"].rc, 0) << steps["remove"].out;
  EXPECT_NE(steps["left"].rc, 0) << steps["left"].out;  // nothing matches
}

}  // namespace
}  // namespace pipette_e2e
