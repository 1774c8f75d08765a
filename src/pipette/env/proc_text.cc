#include "pipette/env/proc_text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>
#include <sstream>

#include "pipette/env/arm_cores.h"
#include "pipette/util/strings.h"

namespace pipette::env {
namespace {

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

std::vector<std::string> SplitWords(std::string_view text) {
  std::vector<std::string> words;
  std::istringstream in{std::string(text)};
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}
std::optional<int64_t> ParseHexOrInt(std::string_view text) {
  text = Trim(text);
  int base = 10;
  if (text.starts_with("0x") || text.starts_with("0X")) {
    text.remove_prefix(2);
    base = 16;
  }
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<int64_t> ParseInt(std::string_view text) {
  text = Trim(text);
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

CpuInfo ParseCpuinfo(std::string_view text) {
  CpuInfo info;
  std::set<std::pair<std::string, std::string>> cores;  // (physical id, core id)
  std::set<std::string> packages;
  std::vector<std::string> arm_cores;
  std::optional<int64_t> first_implementer;
  bool have_flags = false;
  std::optional<std::string> hardware;
  // Per-processor state; cpuinfo lists one block of "key : value" lines per logical CPU.
  std::optional<std::string> physical_id, core_id;
  std::optional<int64_t> implementer, part;
  auto end_block = [&] {
    if (physical_id) packages.insert(*physical_id);
    if (physical_id && core_id) cores.emplace(*physical_id, *core_id);
    if (implementer && part) {
      if (!first_implementer) first_implementer = implementer;
      arm_cores.push_back(ArmImplementerName(*implementer) + " " +
                          ArmPartName(*implementer, *part));
    }
    physical_id.reset();
    core_id.reset();
    implementer.reset();
    part.reset();
  };
  for (std::string_view line : SplitLines(text)) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = Trim(line.substr(0, colon));
    std::string_view value = Trim(line.substr(colon + 1));
    if (key == "processor") {
      end_block();
      ++info.logical;
    } else if (key == "model name" && !info.model) {
      info.model = std::string(value);
    } else if (key == "vendor_id" && !info.vendor) {
      info.vendor = std::string(value);
    } else if (key == "physical id") {
      physical_id = std::string(value);
    } else if (key == "core id") {
      core_id = std::string(value);
    } else if (key == "CPU implementer") {
      implementer = ParseHexOrInt(value);
    } else if (key == "CPU part") {
      part = ParseHexOrInt(value);
    } else if (key == "Hardware" && !hardware) {
      hardware = std::string(value);
    } else if ((key == "flags" || key == "Features") && !have_flags) {
      info.flags = SplitWords(value);
      have_flags = true;
      if (key == "flags") {
        info.hypervisor =
            std::find(info.flags.begin(), info.flags.end(), "hypervisor") != info.flags.end();
      }
    }
  }
  end_block();
  if (!cores.empty()) info.physical = static_cast<int>(cores.size());
  if (!packages.empty()) info.sockets = static_cast<int>(packages.size());
  // ARM: the implementer/part ids say more than "ARMv7 Processor rev 4 (v7l)" or a board name.
  if (auto arm = DescribeArmCores(arm_cores)) {
    info.model = arm;
    if (!info.vendor) info.vendor = ArmImplementerName(*first_implementer);
  }
  if (!info.model) info.model = hardware;
  return info;
}

std::vector<std::string> InterestingIsaFlags(const std::vector<std::string>& flags) {
  static constexpr std::string_view kInteresting[] = {
      // x86
      "sse4_2", "avx", "avx2", "fma", "f16c", "bmi2", "avx512f", "avx512dq", "avx512cd", "avx512bw",
      "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16", "avx512vbmi", "avx_vnni",
      "avx_vnni_int8", "amx_tile", "amx_int8", "amx_bf16", "amx_fp16",
      // ARM
      "neon", "asimd", "fphp", "asimdhp", "asimddp", "asimdfhm", "i8mm", "bf16", "sve", "sve2",
      "svei8mm", "svebf16", "sme", "sme2"};
  std::set<std::string_view> present(flags.begin(), flags.end());
  if (present.count("asimd")) present.insert("neon");  // AdvSIMD is NEON on AArch64
  std::vector<std::string> out;
  for (std::string_view flag : kInteresting) {
    if (present.count(flag)) out.emplace_back(flag);
  }
  return out;
}

MemInfo ParseMeminfo(std::string_view text) {
  MemInfo info;
  for (std::string_view line : SplitLines(text)) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = line.substr(0, colon);
    std::string_view rest = Trim(line.substr(colon + 1));
    int64_t scale = 1;
    if (rest.ends_with("kB")) {
      rest = Trim(rest.substr(0, rest.size() - 2));
      scale = 1024;
    }
    std::optional<int64_t> value = ParseInt(rest);
    if (!value) continue;
    if (key == "MemTotal") info.total_bytes = *value * scale;
    if (key == "MemFree") info.free_bytes = *value * scale;
    if (key == "MemAvailable") info.available_bytes = *value * scale;
  }
  return info;
}

std::optional<LoadAvg> ParseLoadavg(std::string_view text) {
  std::vector<std::string> words = SplitWords(text);
  if (words.size() < 3) return std::nullopt;
  double values[3];
  for (int i = 0; i < 3; ++i) {
    const std::string& w = words[static_cast<size_t>(i)];
    auto [ptr, ec] = std::from_chars(w.data(), w.data() + w.size(), values[i]);
    if (ec != std::errc() || ptr != w.data() + w.size() || !std::isfinite(values[i])) {
      return std::nullopt;
    }
  }
  return LoadAvg{values[0], values[1], values[2]};
}

std::map<std::string, std::string> ParseOsRelease(std::string_view text) {
  std::map<std::string, std::string> out;
  for (std::string_view line : SplitLines(text)) {
    line = Trim(line);
    size_t eq = line.find('=');
    if (line.empty() || line[0] == '#' || eq == std::string_view::npos) continue;
    std::string_view value = line.substr(eq + 1);
    if (value.size() >= 2 && (value[0] == '"' || value[0] == '\'') && value.back() == value[0]) {
      value = value.substr(1, value.size() - 2);
    }
    std::string unescaped;
    for (size_t i = 0; i < value.size(); ++i) {
      if (value[i] == '\\' && i + 1 < value.size()) ++i;
      unescaped += value[i];
    }
    out[std::string(line.substr(0, eq))] = unescaped;
  }
  return out;
}

std::optional<int64_t> ParseCacheSize(std::string_view text) {
  text = Trim(text);
  int shift = 0;
  if (!text.empty()) {
    std::string_view suffixes = "KMG";
    size_t pos = suffixes.find(text.back());
    if (pos != std::string_view::npos) {
      shift = 10 * static_cast<int>(pos + 1);
      text.remove_suffix(1);
    }
  }
  std::optional<int64_t> value = ParseInt(text);
  if (!value || *value < 0) return std::nullopt;
  return *value << shift;
}

bool IsCpuThermalSensor(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return lower.find("cpu") != std::string::npos || lower == "x86_pkg_temp" || lower == "coretemp" ||
         lower == "k10temp" || lower == "zenpower" || lower == "soc_thermal" ||
         lower == "soc-thermal";
}

}  // namespace pipette::env
