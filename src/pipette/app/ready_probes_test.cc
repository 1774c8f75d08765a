// The readiness gate's probes: this machine's (its sensors read from tests/data/fake-sysfs, a
// fake sysfs tree, since this machine exposes no thermal zone) and another device's through a
// fake ssh that answers the probe's script as a board would.
#include "pipette/app/ready_probes.h"

#include <gtest/gtest.h>

#include "pipette/device/local_device.h"
#include "pipette/device/ssh_device.h"
#include "pipette/testing/paths.h"

namespace pipette::app {
namespace {

const std::string kFakeRoot = pipette::testing::SourceDir() + "/tests/data/fake-sysfs";

TEST(ReadyProbes, ThisMachineWithItsSensorsReadFromAFakeTree) {
  auto probe = LocalReadyProbe(kFakeRoot);
  auto look = probe->Look(0.2);
  ASSERT_TRUE(look.ok()) << look.error().message;
  ASSERT_TRUE(look->cpu_busy.has_value()) << look->cpu_na;  // /proc/stat is this machine's own
  EXPECT_EQ(look->temp_c, 48.5);                            // the fake tree's cpu-thermal zone
  EXPECT_EQ(look->sensors_root, kFakeRoot);
  // Without the fake tree: this machine's own /sys, named as such.
  auto own = LocalReadyProbe()->Look(0.1);
  ASSERT_TRUE(own.ok());
  EXPECT_EQ(own->sensors_root, "");
}

class FakeSsh : public CommandRunner {
 public:
  std::string out;
  int exit_code = 0;
  std::string script;
  Result<CommandResult> Run(const Command& c) override {
    script = c.argv.back();
    return CommandResult{exit_code, false, out, exit_code ? "sh: broken" : ""};
  }
};

TEST(ReadyProbes, ABoardIsReadThroughItsShell) {
  FakeSsh ssh;
  ssh.out =
      "==> @stat-before <==\ncpu  100 0 0 900 0 0 0 0\ncpu0 50 0 0 450 0 0 0 0\n"
      "\n==> @stat-after <==\ncpu  150 0 0 1050 0 0 0 0\n"
      "\n==> /sys/class/thermal/thermal_zone0/type <==\ncpu-thermal\n"
      "\n==> /sys/class/thermal/thermal_zone0/temp <==\n51000\n";
  device::SshTarget t;
  t.name = "board";
  t.host = "10.0.0.2";
  device::SshDevice board(t, ssh);
  auto probe = ReadyProbeFor(board, kFakeRoot);  // the root is this machine's only
  auto look = probe->Look(1);
  ASSERT_TRUE(look.ok()) << look.error().message;
  EXPECT_DOUBLE_EQ(*look->cpu_busy, 50.0 / 200.0);
  EXPECT_EQ(look->temp_c, 51.0);
  EXPECT_EQ(look->sensors_root, "");
  EXPECT_NE(ssh.script.find("sleep 1;"), std::string::npos) << ssh.script;
  // A CPU sensor under hwmon counts when no thermal zone names a CPU (as in the conditions).
  ssh.out =
      "==> @stat-before <==\ncpu  1 0 0 9 0 0 0 0\n\n==> @stat-after <==\ncpu  1 0 0 19\n"
      "\n==> /sys/class/hwmon/hwmon2/name <==\nk10temp\n"
      "\n==> /sys/class/hwmon/hwmon2/temp1_input <==\n63250\n";
  auto amd = probe->Look(1);
  ASSERT_TRUE(amd.ok());
  EXPECT_EQ(amd->temp_c, 63.25);
  // A board without thermal zones: no temperature, with the reason.
  ssh.out = "==> @stat-before <==\ncpu  1 0 0 9 0 0 0 0\n\n==> @stat-after <==\ncpu  1 0 0 19\n";
  auto cold = probe->Look(1);
  ASSERT_TRUE(cold.ok());
  EXPECT_DOUBLE_EQ(*cold->cpu_busy, 0.0);
  EXPECT_FALSE(cold->temp_c.has_value());
  EXPECT_EQ(cold->temp_na, "no CPU temperature under /sys/class/thermal or /sys/class/hwmon");
  // A script that fails is an error, not a reading.
  ssh.exit_code = 1;
  EXPECT_FALSE(probe->Look(1).ok());
}

}  // namespace
}  // namespace pipette::app
