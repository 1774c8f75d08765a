#include "pipette/app/ready_probes.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "pipette/device/remote_device.h"
#include "pipette/env/cpu_busy.h"
#include "pipette/env/machine_files.h"
#include "pipette/env/sensors.h"

namespace pipette::app {
namespace {

// The same reading as the cell's conditions (`cpu_temp_c`): the hottest CPU thermal zone, else
// a CPU hwmon sensor (k10temp, coretemp).
void FillTemperature(const env::FileSource& files, run::ReadyLook* look) {
  look->temp_c = env::ConditionsFromFiles(files).cpu_temp_c;
  if (!look->temp_c) {
    look->temp_na = "no CPU temperature under /sys/class/thermal or /sys/class/hwmon";
  }
}

class Local : public run::ReadyProbe {
 public:
  explicit Local(std::string root) : root_(std::move(root)) {}
  Result<run::ReadyLook> Look(double window_s) override {
    run::ReadyLook look;
    const auto before = env::ReadBusy(files_, getpid());
    std::this_thread::sleep_for(std::chrono::duration<double>(window_s));
    const auto after = env::ReadBusy(files_, getpid());
    if (before && after) look.cpu_busy = env::BusyOthers(*before, *after);
    if (!look.cpu_busy) look.cpu_na = "cannot read /proc/stat, or no clock tick passed";
    if (root_.empty()) {
      FillTemperature(files_, &look);
    } else {
      FillTemperature(env::RootedFiles(root_, files_), &look);
      look.sensors_root = root_;
    }
    return look;
  }
  Result<env::Sensors> ReadSensors() override {
    if (root_.empty()) return env::ReadSensors(files_);
    return env::ReadSensors(env::RootedFiles(root_, files_));
  }
  std::string SensorsRoot() const override { return root_; }

 private:
  std::string root_;
  env::LocalFiles files_;
};

class Shell : public run::ReadyProbe {
 public:
  explicit Shell(device::RemoteShellDevice& device) : device_(device) {}
  Result<run::ReadyLook> Look(double window_s) override {
    const std::string script = fmt::format(
        "printf '==> @stat-before <==\\n'; cat /proc/stat; sleep {:g}; "
        "printf '\\n==> @stat-after <==\\n'; cat /proc/stat; "
        "for f in /sys/class/thermal/thermal_zone*/type /sys/class/thermal/thermal_zone*/temp "
        "/sys/class/hwmon/hwmon*/name /sys/class/hwmon/hwmon*/temp1_input; do "
        "if [ -f \"$f\" ] && [ -r \"$f\" ]; then printf '\\n==> %s <==\\n' \"$f\"; cat \"$f\"; fi; "
        "done; true",
        window_s);
    auto out = device_.Output(script, window_s + 60);
    if (!out) return out.error();
    const env::SnapshotFiles files(env::ParseSnapshot(*out));
    run::ReadyLook look;
    const auto before = files.Read("@stat-before");
    const auto after = files.Read("@stat-after");
    const auto a = before ? env::ParseProcStat(*before) : std::nullopt;
    const auto b = after ? env::ParseProcStat(*after) : std::nullopt;
    if (a && b) look.cpu_busy = env::BusyOthers({*a, 0}, {*b, 0});
    if (!look.cpu_busy) {
      look.cpu_na =
          fmt::format("cannot read /proc/stat on {}, or no clock tick passed", device_.Name());
    }
    FillTemperature(files, &look);
    return look;
  }
  // The files env::ReadSensors reads, in one script through the device's shell.
  Result<env::Sensors> ReadSensors() override {
    auto out = device_.Output(
        "for f in /sys/devices/system/cpu/cpu*/cpufreq/scaling_cur_freq "
        "/sys/class/thermal/thermal_zone*/type /sys/class/thermal/thermal_zone*/temp "
        "/sys/class/power_supply/*/type /sys/class/power_supply/*/online "
        "/sys/class/power_supply/*/status /sys/class/power_supply/*/capacity "
        "/sys/class/power_supply/*/power_now /sys/class/power_supply/*/current_now "
        "/sys/class/power_supply/*/voltage_now /sys/class/powercap/*/name "
        "/sys/class/powercap/*/energy_uj /sys/class/powercap/*/max_energy_range_uj; do "
        "if [ -f \"$f\" ] && [ -r \"$f\" ]; then printf '\\n==> %s <==\\n' \"$f\"; cat \"$f\"; fi; "
        "done; true",
        60);
    if (!out) return out.error();
    return env::ReadSensors(env::SnapshotFiles(env::ParseSnapshot(*out)));
  }

 private:
  device::RemoteShellDevice& device_;
};

}  // namespace

std::string SensorsRootFromEnvironment() {
  const char* root = std::getenv("PIPETTE_SYSFS_ROOT");
  return root ? root : "";
}

std::unique_ptr<run::ReadyProbe> LocalReadyProbe(std::string sensors_root) {
  return std::make_unique<Local>(std::move(sensors_root));
}

std::unique_ptr<run::ReadyProbe> ShellReadyProbe(device::Device& device) {
  return std::make_unique<Shell>(dynamic_cast<device::RemoteShellDevice&>(device.Underlying()));
}

std::unique_ptr<run::ReadyProbe> ReadyProbeFor(device::Device& device,
                                               const std::string& sensors_root) {
  // A tier's sensors are those of the device it runs on.
  if (dynamic_cast<device::RemoteShellDevice*>(&device.Underlying())) {
    return ShellReadyProbe(device);
  }
  return LocalReadyProbe(sensors_root);
}

}  // namespace pipette::app
