// The sensors of a device, read from its /sys through a FileSource (machine_files.h): CPU
// frequencies, thermal zones, power supplies (mains, USB, battery) and powercap energy counters
// (Intel RAPL and the like). A sensor the device does not expose is absent, with the reason in
// `na` ("no thermal zone under /sys/class/thermal"): nothing is guessed. RootedFiles reads them
// under another root folder, so tests point the readers at a fake sysfs tree (named as a fake
// wherever its readings are stored).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/env/machine_files.h"
#include "pipette/util/result.h"

namespace pipette::env {

// `inner`'s files under `root`: Read("/sys/x") reads ROOT/sys/x.
class RootedFiles : public FileSource {
 public:
  RootedFiles(std::string root, const FileSource& inner) : root_(std::move(root)), inner_(inner) {}
  std::optional<std::string> Read(const std::string& path) const override {
    return inner_.Read(root_ + path);
  }
  std::vector<std::string> List(const std::string& dir) const override {
    return inner_.List(root_ + dir);
  }
  const std::string& root() const { return root_; }

 private:
  std::string root_;
  const FileSource& inner_;
};

struct ThermalZone {
  std::string zone;  // "thermal_zone0"
  std::string type;  // "x86_pkg_temp", "cpu-thermal", "battery"
  double temp_c = 0;
};

struct PowerSupply {
  std::string name;  // "BAT0", "AC", "battery", "usb"
  std::string type;  // "Battery", "Mains", "USB"
  std::optional<bool> online;
  std::optional<std::string> status;  // "Charging", "Discharging", "Full", "Not charging"
  std::optional<int64_t> capacity_pct;
  // Power drawn now, watts: power_now, else current_now x voltage_now (both in micro-units).
  std::optional<double> power_w;
};

struct EnergyCounter {
  std::string zone;  // "intel-rapl:0"
  std::string name;  // "package-0"
  int64_t energy_uj = 0;
  std::optional<int64_t> max_range_uj;  // where the counter wraps
};

struct Sensors {
  std::map<int, int64_t> cpu_freq_khz;  // scaling_cur_freq of each CPU that has one
  std::vector<ThermalZone> thermal;
  std::vector<PowerSupply> power;
  std::vector<EnergyCounter> energy;  // top-level powercap zones (packages), not their parts
  // Why a group is empty: "cpu_freq", "thermal", "power", "energy" -> the reason.
  std::map<std::string, std::string> na;
};

Sensors ReadSensors(const FileSource& files);
nlohmann::json ToJson(const Sensors& sensors);

// The hottest CPU zone (IsCpuThermalSensor), else the hottest zone; nullopt when none.
std::optional<double> HottestC(const Sensors& sensors);
// The battery's readings, where the device has one.
const PowerSupply* Battery(const Sensors& sensors);

// Joules the powercap counters counted between two readings of the same device (a counter that
// wrapped adds its range), summed over the packages; an error saying why when there are none or
// the two readings do not hold the same counters.
Result<double> EnergyBetween(const Sensors& before, const Sensors& after);

// What a stretch of `seconds` between two readings cost in energy (docs/metrics.md "energy per
// token"): {"joules", "seconds", "source": "powercap"} from the powercap counters, else from a
// discharging battery's power, the mean of its two readings times the seconds ("source":
// "battery power_now"); else {"na": why} (no counter, a battery that is charging or absent: a
// supply's input power is not the device's draw).
nlohmann::json EnergyFacts(const Sensors& before, const Sensors& after, double seconds);

// Whether readings like these can give energy at all (a powercap counter or a battery's power).
bool HasEnergySource(const Sensors& sensors);

}  // namespace pipette::env
