#include "pipette/env/arm_cores.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <utility>

namespace pipette::env {

std::string ArmImplementerName(int64_t id) {
  static constexpr std::pair<int, std::string_view> kNames[] = {
      {0x41, "ARM"},    {0x42, "Broadcom"}, {0x43, "Cavium"},    {0x48, "HiSilicon"},
      {0x4e, "NVIDIA"}, {0x50, "APM"},      {0x51, "Qualcomm"},  {0x53, "Samsung"},
      {0x61, "Apple"},  {0x69, "Intel"},    {0x6d, "Microsoft"}, {0xc0, "Ampere"}};
  for (const auto& [key, name] : kNames) {
    if (key == id) return std::string(name);
  }
  return fmt::format("implementer 0x{:02x}", id);
}

std::string ArmPartName(int64_t implementer, int64_t part) {
  static constexpr std::pair<int, std::string_view> kArmParts[] = {
      {0xd03, "Cortex-A53"},  {0xd04, "Cortex-A35"},  {0xd05, "Cortex-A55"},  {0xd07, "Cortex-A57"},
      {0xd08, "Cortex-A72"},  {0xd09, "Cortex-A73"},  {0xd0a, "Cortex-A75"},  {0xd0b, "Cortex-A76"},
      {0xd0c, "Neoverse-N1"}, {0xd0d, "Cortex-A77"},  {0xd40, "Neoverse-V1"}, {0xd41, "Cortex-A78"},
      {0xd44, "Cortex-X1"},   {0xd46, "Cortex-A510"}, {0xd47, "Cortex-A710"}, {0xd48, "Cortex-X2"},
      {0xd49, "Neoverse-N2"}, {0xd4b, "Cortex-A78C"}, {0xd4d, "Cortex-A715"}, {0xd4e, "Cortex-X3"},
      {0xd4f, "Neoverse-V2"}, {0xd80, "Cortex-A520"}, {0xd81, "Cortex-A720"}, {0xd82, "Cortex-X4"}};
  if (implementer == 0x41) {
    for (const auto& [key, name] : kArmParts) {
      if (key == part) return std::string(name);
    }
  }
  return fmt::format("part 0x{:03x}", part);
}

std::optional<std::string> DescribeArmCores(const std::vector<std::string>& cores) {
  if (cores.empty()) return std::nullopt;
  std::vector<std::pair<std::string, int>> counts;
  for (const std::string& core : cores) {
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&](const auto& entry) { return entry.first == core; });
    if (it == counts.end()) {
      counts.emplace_back(core, 1);
    } else {
      ++it->second;
    }
  }
  if (counts.size() == 1) return counts[0].first;
  std::string out;
  for (const auto& [name, count] : counts) {
    out += fmt::format("{}{} x{}", out.empty() ? "" : " + ", name, count);
  }
  return out;
}

}  // namespace pipette::env
