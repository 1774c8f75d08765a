// Parsers of the texts Linux gives in /proc and /sys (cpuinfo, meminfo, loadavg, os-release, a
// cache size, a thermal sensor's name): pure functions over file contents, tested on sample texts.
// The fingerprint (fingerprint.h) reads the files and calls them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipette::env {

struct CpuInfo {
  std::optional<std::string> model;   // x86 "model name"; ARM: from implementer/part ids
  std::optional<std::string> vendor;  // x86 "vendor_id"; ARM: implementer name
  int logical = 0;                    // number of "processor" entries
  std::optional<int> physical;        // distinct (physical id, core id) pairs, when listed
  std::optional<int> sockets;         // distinct physical ids, when listed
  std::vector<std::string> flags;     // "flags" (x86) or "Features" (ARM) of the first processor
  std::optional<bool> hypervisor;     // x86 only: the "hypervisor" flag
};
CpuInfo ParseCpuinfo(std::string_view text);

// The flags that matter to inference kernels, in a fixed order; "neon" is added for "asimd".
std::vector<std::string> InterestingIsaFlags(const std::vector<std::string>& flags);

struct MemInfo {
  std::optional<int64_t> total_bytes, free_bytes, available_bytes;
};
MemInfo ParseMeminfo(std::string_view text);

struct LoadAvg {
  double one = 0, five = 0, fifteen = 0;
};
std::optional<LoadAvg> ParseLoadavg(std::string_view text);

// KEY=VALUE lines; quotes and backslash escapes removed, comments skipped.
std::map<std::string, std::string> ParseOsRelease(std::string_view text);

// sysfs cache "size" ("32K", "1M", "512") in bytes.
std::optional<int64_t> ParseCacheSize(std::string_view text);

// A whole decimal integer, surrounding whitespace allowed.
std::optional<int64_t> ParseInt(std::string_view text);

// Whether a thermal zone type or hwmon name is a CPU/SoC sensor (x86_pkg_temp, cpu-thermal, ...).
bool IsCpuThermalSensor(std::string_view name);

}  // namespace pipette::env
