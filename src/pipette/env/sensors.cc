#include "pipette/env/sensors.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "pipette/env/fingerprint.h"
#include "pipette/util/strings.h"

namespace pipette::env {
namespace {

using nlohmann::json;

constexpr std::string_view kCpuDir = "/sys/devices/system/cpu";
constexpr std::string_view kThermalDir = "/sys/class/thermal";
constexpr std::string_view kPowerDir = "/sys/class/power_supply";
constexpr std::string_view kPowercapDir = "/sys/class/powercap";

std::optional<std::string> Trimmed(const FileSource& files, const std::string& path) {
  std::optional<std::string> text = files.Read(path);
  if (!text) return std::nullopt;
  const std::string_view trimmed = Trim(*text);
  if (trimmed.empty()) return std::nullopt;
  return std::string(trimmed);
}

std::optional<int64_t> Int(const FileSource& files, const std::string& path) {
  std::optional<std::string> text = files.Read(path);
  return text ? ParseInt(*text) : std::nullopt;
}

std::optional<int> CpuNumber(const std::string& name) {
  if (name.size() < 4 || !name.starts_with("cpu")) return std::nullopt;
  if (!std::all_of(name.begin() + 3, name.end(), [](unsigned char c) { return std::isdigit(c); }))
    return std::nullopt;
  return std::stoi(name.substr(3));
}

template <class T>
json OrNull(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

}  // namespace

Sensors ReadSensors(const FileSource& files) {
  Sensors s;
  for (const std::string& name : files.List(std::string(kCpuDir))) {
    const std::optional<int> cpu = CpuNumber(name);
    if (!cpu) continue;
    if (auto khz = Int(files, fmt::format("{}/{}/cpufreq/scaling_cur_freq", kCpuDir, name))) {
      s.cpu_freq_khz[*cpu] = *khz;
    }
  }
  if (s.cpu_freq_khz.empty()) {
    s.na["cpu_freq"] = fmt::format("no cpufreq under {} (a virtual machine has none)", kCpuDir);
  }

  for (const std::string& zone : files.List(std::string(kThermalDir))) {
    if (!zone.starts_with("thermal_zone")) continue;
    const std::string dir = fmt::format("{}/{}", kThermalDir, zone);
    auto milli = Int(files, dir + "/temp");
    if (!milli) continue;
    s.thermal.push_back({zone, Trimmed(files, dir + "/type").value_or(""), double(*milli) / 1000});
  }
  if (s.thermal.empty()) s.na["thermal"] = fmt::format("no thermal zone under {}", kThermalDir);

  for (const std::string& name : files.List(std::string(kPowerDir))) {
    const std::string dir = fmt::format("{}/{}", kPowerDir, name);
    PowerSupply p;
    p.name = name;
    p.type = Trimmed(files, dir + "/type").value_or("");
    if (auto online = Int(files, dir + "/online")) p.online = *online != 0;
    p.status = Trimmed(files, dir + "/status");
    p.capacity_pct = Int(files, dir + "/capacity");
    if (auto uw = Int(files, dir + "/power_now")) {
      p.power_w = std::abs(double(*uw)) / 1e6;  // some drivers sign a discharge negative
    } else if (auto ua = Int(files, dir + "/current_now")) {
      if (auto uv = Int(files, dir + "/voltage_now")) {
        p.power_w = std::abs(double(*ua)) / 1e6 * (double(*uv) / 1e6);
      }
    }
    s.power.push_back(std::move(p));
  }
  if (s.power.empty()) s.na["power"] = fmt::format("no power supply under {}", kPowerDir);

  for (const std::string& zone : files.List(std::string(kPowercapDir))) {
    // Top-level zones only ("intel-rapl:0", not its parts "intel-rapl:0:0" nor the control
    // type "intel-rapl"): their counters already include their parts'.
    // "intel-rapl-mmio:0" counts the same package again through another interface.
    const size_t colon = zone.find(':');
    if (colon == std::string::npos || zone.find(':', colon + 1) != std::string::npos) continue;
    if (zone.substr(0, colon).ends_with("-mmio")) continue;
    const std::string dir = fmt::format("{}/{}", kPowercapDir, zone);
    auto uj = Int(files, dir + "/energy_uj");
    if (!uj) continue;
    s.energy.push_back({zone, Trimmed(files, dir + "/name").value_or(""), *uj,
                        Int(files, dir + "/max_energy_range_uj")});
  }
  if (s.energy.empty()) {
    s.na["energy"] =
        fmt::format("no readable energy counter under {} (RAPL counters are readable by root only)",
                    kPowercapDir);
  }
  return s;
}

json ToJson(const Sensors& s) {
  json out = json::object();
  json freq = json::object();
  for (const auto& [cpu, khz] : s.cpu_freq_khz) freq[fmt::format("cpu{}", cpu)] = khz;
  out["cpu_freq_khz"] = freq;
  json thermal = json::array();
  for (const ThermalZone& z : s.thermal) {
    thermal.push_back({{"zone", z.zone}, {"type", z.type}, {"temp_c", z.temp_c}});
  }
  out["thermal"] = thermal;
  json power = json::array();
  for (const PowerSupply& p : s.power) {
    power.push_back({{"name", p.name},
                     {"type", p.type},
                     {"online", OrNull(p.online)},
                     {"status", OrNull(p.status)},
                     {"capacity_pct", OrNull(p.capacity_pct)},
                     {"power_w", OrNull(p.power_w)}});
  }
  out["power"] = power;
  json energy = json::array();
  for (const EnergyCounter& e : s.energy) {
    energy.push_back({{"zone", e.zone},
                      {"name", e.name},
                      {"energy_uj", e.energy_uj},
                      {"max_range_uj", OrNull(e.max_range_uj)}});
  }
  out["energy"] = energy;
  if (!s.na.empty()) out["na"] = s.na;
  return out;
}

std::optional<double> HottestC(const Sensors& s) {
  std::optional<double> cpu, any;
  for (const ThermalZone& z : s.thermal) {
    if (!any || z.temp_c > *any) any = z.temp_c;
    if (IsCpuThermalSensor(z.type) && (!cpu || z.temp_c > *cpu)) cpu = z.temp_c;
  }
  return cpu ? cpu : any;
}

const PowerSupply* Battery(const Sensors& s) {
  for (const PowerSupply& p : s.power) {
    if (p.type == "Battery") return &p;
  }
  return nullptr;
}

Result<double> EnergyBetween(const Sensors& before, const Sensors& after) {
  if (before.energy.empty() || after.energy.empty()) {
    return RuntimeError(before.na.count("energy") ? before.na.at("energy")
                                                  : "no energy counter was read");
  }
  if (before.energy.size() != after.energy.size()) {
    return RuntimeError("the energy counters changed between the two readings");
  }
  double joules = 0;
  for (size_t i = 0; i < before.energy.size(); ++i) {
    const EnergyCounter& a = before.energy[i];
    const EnergyCounter& b = after.energy[i];
    if (a.zone != b.zone)
      return RuntimeError("the energy counters changed between the two readings");
    int64_t delta = b.energy_uj - a.energy_uj;
    if (delta < 0) {
      if (!b.max_range_uj) {
        return RuntimeError(fmt::format("energy counter {} went back and has no range", b.zone));
      }
      delta += *b.max_range_uj;  // wrapped once
    }
    joules += double(delta) / 1e6;
  }
  return joules;
}

bool HasEnergySource(const Sensors& s) {
  const PowerSupply* battery = Battery(s);
  return !s.energy.empty() || (battery && battery->power_w);
}

nlohmann::json EnergyFacts(const Sensors& before, const Sensors& after, double seconds) {
  if (!before.energy.empty()) {
    auto joules = EnergyBetween(before, after);
    if (!joules) return {{"na", joules.error().message}};
    return {{"joules", *joules}, {"seconds", seconds}, {"source", "powercap"}};
  }
  const PowerSupply* a = Battery(before);
  const PowerSupply* b = Battery(after);
  if (!a || !b || !a->power_w || !b->power_w) {
    std::string why = "no powercap energy counter and no battery power reading";
    if (before.na.count("energy")) why += " (" + before.na.at("energy") + ")";
    return {{"na", why}};
  }
  for (const PowerSupply* p : {a, b}) {
    if (p->status && *p->status != "Discharging") {
      return {{"na", fmt::format("the battery is {}, not discharging: its power is not the "
                                 "device's draw",
                                 ToLower(*p->status))}};
    }
  }
  const double watts = (*a->power_w + *b->power_w) / 2;
  return {{"joules", watts * seconds}, {"seconds", seconds}, {"source", "battery power_now"}};
}

}  // namespace pipette::env
