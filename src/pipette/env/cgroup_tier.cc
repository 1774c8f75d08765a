#include "pipette/env/cgroup_tier.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "pipette/util/shell_quote.h"
#include "pipette/util/strings.h"

namespace pipette::env {
namespace {

using nlohmann::json;

constexpr int64_t kPeriodUs = 100000;  // the quota's period: 100 ms, the kernel's default

// The shell function `cg CONTROLLER`: the folder of the new cgroup under the shell's own cgroup
// in that controller's v1 hierarchy (its mount point from /proc/self/mounts, its path from
// /proc/self/cgroup).
constexpr const char* kCgFunction = R"sh(cg() {
  m=$(awk -v c="$1" '$3=="cgroup"{n=split($4,o,",");for(i=1;i<=n;i++)if(o[i]==c){print $2;exit}}' /proc/self/mounts)
  if [ -z "$m" ]; then
    if [ -e /sys/fs/cgroup/cgroup.controllers ]; then
      echo "no cgroup v1 '$1' hierarchy is mounted: this machine has cgroup v2 alone, which Pipette's tiers do not use yet" >&2
    else
      echo "no cgroup v1 '$1' hierarchy is mounted (is /sys/fs/cgroup mounted?)" >&2
    fi
    return 3
  fi
  p=$(awk -F: -v c="$1" '{n=split($2,o,",");for(i=1;i<=n;i++)if(o[i]==c){print $3;exit}}' /proc/self/cgroup)
  echo "$m${p%/}/$2"
}
S= C= M=
undo() { for d in "$S" "$C" "$M"; do [ -n "$d" ] && rmdir "$d" 2>/dev/null; done; }
fail() { echo "$1" >&2; undo; exit 4; }
put() { echo "$2" > "$1" 2>/dev/null || fail "cannot write $2 to $1 (is it writable, as root, and the value one the kernel accepts?)"; }
mk() { d=$(cg "$1" "$2") || { undo; exit 3; }; mkdir "$d" 2>/dev/null || fail "cannot make the cgroup $d (cgroups need root)"; }
)sh";

}  // namespace

json Tier::ToJson() const {
  json j = json::object();
  if (!cpus.empty()) j["cpus"] = cpus;
  if (cpu_quota) j["cpu_quota"] = *cpu_quota;
  if (memory_bytes) j["memory_bytes"] = *memory_bytes;
  return j;
}

Tier Tier::FromJson(const json& j) {
  Tier t;
  if (!j.is_object()) return t;
  if (auto it = j.find("cpus"); it != j.end() && it->is_array()) {
    for (const json& c : *it) t.cpus.push_back(c.get<int>());
  }
  if (auto it = j.find("cpu_quota"); it != j.end() && it->is_number())
    t.cpu_quota = it->get<double>();
  if (auto it = j.find("memory_bytes"); it != j.end() && it->is_number_integer()) {
    t.memory_bytes = it->get<int64_t>();
  }
  return t;
}

std::string Tier::Label() const {
  std::vector<std::string> parts;
  if (!cpus.empty()) parts.push_back(fmt::format("cpus {}", fmt::join(cpus, ",")));
  if (cpu_quota) parts.push_back(fmt::format("quota {:g} CPU", *cpu_quota));
  if (memory_bytes) parts.push_back(fmt::format("memory {}", FormatBytes(double(*memory_bytes))));
  return fmt::format("emulated tier: {}", fmt::join(parts, ", "));
}

std::string TierCreateScript(const Tier& tier, const std::string& name) {
  std::string s = kCgFunction;
  const std::string q = ShellQuote(name);
  if (!tier.cpus.empty()) {
    s += fmt::format(
        "mk cpuset {0}; S=$d\n"
        "mems=$(cat \"$S/../cpuset.effective_mems\" 2>/dev/null || cat \"$S/../cpuset.mems\")\n"
        "put \"$S/cpuset.mems\" \"$mems\"\n"
        "put \"$S/cpuset.cpus\" {1}\n",
        q, fmt::join(tier.cpus, ","));
  }
  if (tier.cpu_quota) {
    const auto quota = static_cast<int64_t>(std::llround(*tier.cpu_quota * kPeriodUs));
    s += fmt::format(
        "mk cpu {0}; C=$d\n"
        "put \"$C/cpu.cfs_period_us\" {1}\n"
        "put \"$C/cpu.cfs_quota_us\" {2}\n",
        q, kPeriodUs, std::max<int64_t>(quota, 1000));
  }
  if (tier.memory_bytes) {
    s += fmt::format(
        "mk memory {0}; M=$d\n"
        "put \"$M/memory.limit_in_bytes\" {1}\n"
        "if [ -e \"$M/memory.memsw.limit_in_bytes\" ]; then put \"$M/memory.memsw.limit_in_bytes\" "
        "{1}; fi\n",
        q, *tier.memory_bytes);
  }
  if (!tier.cpus.empty()) s += "echo \"cgroup cpuset $S\"\n";
  if (tier.cpu_quota) s += "echo \"cgroup cpu $C\"\n";
  if (tier.memory_bytes) s += "echo \"cgroup memory $M\"\n";
  return s;
}

Result<TierCgroups> ParseTierCgroups(const std::string& printed) {
  TierCgroups out;
  std::istringstream in(printed);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::istringstream words(line);
    std::string tag, controller, folder;
    words >> tag >> controller;
    std::getline(words >> std::ws, folder);
    if (tag != "cgroup" || controller.empty() || !folder.starts_with("/")) {
      return RuntimeError(fmt::format("the tier's cgroups: unexpected line '{}'", line));
    }
    out[controller] = folder;
  }
  if (out.empty()) return RuntimeError("the tier's cgroups: the device made none");
  return out;
}

std::string TierJoinPrelude(const TierCgroups& cgroups) {
  std::vector<std::string> folders;
  for (const auto& [controller, folder] : cgroups) folders.push_back(folder);
  return fmt::format(
      "for d in {}; do echo $$ > \"$d/cgroup.procs\" || {{ echo \"pipette: cannot join the "
      "tier's cgroup $d\" >&2; exit 97; }}; done",
      ShellJoin(folders));
}

std::string TierReadScript(const TierCgroups& cgroups, int64_t pid, bool reset_peak) {
  std::string s;
  if (auto it = cgroups.find("memory"); it != cgroups.end()) {
    const std::string m = ShellQuote(it->second);
    if (reset_peak) s += fmt::format("echo 0 > {}/memory.max_usage_in_bytes\n", m);
    s += fmt::format(
        "for f in max_usage_in_bytes limit_in_bytes failcnt; do echo \"memory.$f $(cat "
        "{0}/memory.$f)\"; done\n"
        "sed 's/^/memory.oom_control./' {0}/memory.oom_control\n",
        m);
  }
  if (auto it = cgroups.find("cpu"); it != cgroups.end()) {
    s += fmt::format("sed 's/^/cpu./' {}/cpu.stat\n", ShellQuote(it->second));
  }
  if (auto it = cgroups.find("cpuset"); it != cgroups.end()) {
    s += fmt::format("echo \"cpuset.cpus $(cat {}/cpuset.cpus)\"\n", ShellQuote(it->second));
  }
  s += fmt::format(
      "a=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/{}/status 2>/dev/null); "
      "[ -n \"$a\" ] && echo \"worker.cpus_allowed_list $a\"; true\n",
      pid);
  return s;
}

json ParseTierReading(const std::string& printed) {
  json out = json::object();
  std::istringstream in(printed);
  std::string line;
  while (std::getline(in, line)) {
    const size_t sp = line.find(' ');
    if (sp == std::string::npos || sp == 0) continue;
    const std::string key = line.substr(0, sp);
    const size_t at = line.find_first_not_of(" \t", sp);
    const std::string value = at == std::string::npos ? "" : line.substr(at);
    char* end = nullptr;
    errno = 0;
    const long long n = std::strtoll(value.c_str(), &end, 10);
    // CPU lists ("0", "0-1") stay text whatever they look like.
    const bool cpu_list = key.find("cpus") != std::string::npos;
    if (!cpu_list && !value.empty() && end && *end == '\0' && errno == 0) {
      out[key] = static_cast<int64_t>(n);
    } else {
      out[key] = value;
    }
  }
  return out;
}

std::string TierRemoveScript(const TierCgroups& cgroups) {
  std::vector<std::string> folders;
  for (const auto& [controller, folder] : cgroups) folders.push_back(folder);
  // Exits non-zero when a folder is still there (its worker not gone yet): tried again later.
  return fmt::format(
      "for d in {0}; do i=0; while [ -d \"$d\" ] && ! rmdir \"$d\" 2>/dev/null && [ $i -lt 20 ]; "
      "do i=$((i+1)); sleep 0.1; done; done; for d in {0}; do [ -d \"$d\" ] && exit 1; done; "
      "true",
      ShellJoin(folders));
}

bool OomKilled(const json& start, const json& end) {
  auto number = [](const json& j, const char* key) -> std::optional<int64_t> {
    if (!j.is_object()) return std::nullopt;
    auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer()) return std::nullopt;
    return it->get<int64_t>();
  };
  if (auto kills = number(end, "memory.oom_control.oom_kill")) {
    return *kills > number(start, "memory.oom_control.oom_kill").value_or(0);
  }
  // A kernel before 4.13 counts no kills: the cell failed with the peak at its cap (within a
  // page of it).
  auto peak = number(end, "memory.max_usage_in_bytes");
  auto cap = number(end, "memory.limit_in_bytes");
  return peak && cap && *peak + 4096 >= *cap;
}

}  // namespace pipette::env
