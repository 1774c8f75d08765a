#include "pipette/env/cgroup_tier.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
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

// Shell functions. `v1 CONTROLLER`: the mount point of the controller's cgroup v1 hierarchy (from
// /proc/self/mounts). `base CONTROLLER`: the folder new cgroups of that controller go in: in v1
// the shell's own cgroup in that hierarchy (its path from /proc/self/cgroup); for a controller v1
// does not have, the root of cgroup v2 where the root lists it (one folder there serves every
// controller: a v2 cgroup that holds processes cannot pass controllers on to children, the root
// can). `cg CONTROLLER NAME`: the folder of the new cgroup NAME, the controller turned on in the v2
// root's cgroup.subtree_control first (it stays on, as a service manager leaves it).
constexpr const char* kCgFunction = R"sh(v1() {
  awk -v c="$1" '$3=="cgroup"{n=split($4,o,",");for(i=1;i<=n;i++)if(o[i]==c){print $2;exit}}' /proc/self/mounts
}
base() {
  m=$(v1 "$1")
  if [ -n "$m" ]; then
    p=$(awk -F: -v c="$1" '{n=split($2,o,",");for(i=1;i<=n;i++)if(o[i]==c){print $3;exit}}' /proc/self/cgroup)
    echo "$m${p%/}"
    return 0
  fi
  u=$(awk '$3=="cgroup2"{print $2;exit}' /proc/self/mounts)
  if [ -n "$u" ] && grep -qw "$1" "$u/cgroup.controllers" 2>/dev/null; then
    echo "$u"
    return 0
  fi
  if [ -n "$u" ]; then
    echo "neither cgroup v1 nor cgroup v2 (at $u: $(cat "$u/cgroup.controllers" 2>/dev/null)) has the '$1' controller here" >&2
  else
    echo "no cgroup hierarchy has the '$1' controller here (is /sys/fs/cgroup mounted?)" >&2
  fi
  return 3
}
v2() { [ -e "$1/cgroup.controllers" ]; }
cg() {
  b=$(base "$1") || return 3
  if v2 "$b" && ! grep -qw "$1" "$b/cgroup.subtree_control"; then
    e=$( (echo "+$1" > "$b/cgroup.subtree_control") 2>&1) || {
      echo "cannot turn on cgroup v2's '$1' controller in $b/cgroup.subtree_control: ${e##*: } (it needs root; and a v2 cgroup that holds processes, as a container's cgroup root does, cannot pass controllers on)" >&2; return 3; }
  fi
  echo "$b/$2"
}
S= C= M=
undo() { for d in "$S" "$C" "$M"; do [ -n "$d" ] && rmdir "$d" 2>/dev/null; done; }
fail() { echo "$1" >&2; undo; exit 4; }
put() { echo "$2" > "$1" 2>/dev/null || fail "cannot write $2 to $1 (is it writable, as root, and the value one the kernel accepts?)"; }
mk() {
  d=$(cg "$1" "$2") || { undo; exit 3; }
  case "$d" in "$S"|"$C"|"$M") return 0;; esac  # v2: this script's folder, made for another controller
  [ -d "$d" ] && { echo "the cgroup $d exists already" >&2; undo; exit 4; }
  mkdir "$d" 2>/dev/null || fail "cannot make the cgroup $d (cgroups need root)"
}
)sh";

// The folders of a tier, each once (in cgroup v2 every controller has the same one).
std::vector<std::string> Folders(const TierCgroups& cgroups) {
  std::vector<std::string> folders;
  for (const auto& [controller, folder] : cgroups) {
    if (std::find(folders.begin(), folders.end(), folder) == folders.end()) {
      folders.push_back(folder);
    }
  }
  return folders;
}

std::optional<int64_t> Number(const json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

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
    // cgroup v1 needs the memory nodes too; v2's empty cpuset.mems takes the parent's. Android
    // mounts v1's cpuset with `noprefix` (cpus, mems). v2 takes any possible CPU and runs on the
    // parent's when none of them is online: the CPUs in effect must be the ones asked for.
    s += fmt::format(
        "mk cpuset {0}; S=$d\n"
        "P=cpuset.; [ -e \"$S/cpuset.cpus\" ] || P=\n"
        "if ! v2 \"$S\"; then\n"
        "  mems=$(cat \"$S/../${{P}}effective_mems\" 2>/dev/null || cat \"$S/../${{P}}mems\")\n"
        "  put \"$S/${{P}}mems\" \"$mems\"\n"
        "fi\n"
        "put \"$S/${{P}}cpus\" {1}\n"
        "F=\"$S/${{P}}effective_cpus\"; v2 \"$S\" && F=\"$S/cpuset.cpus.effective\"\n"
        "if [ -e \"$F\" ]; then\n"
        "  e=$(cat \"$F\")\n"
        "  [ \"$e\" = {1} ] || fail \"the cpuset {1} is in effect as '$e' in $S: a CPU of it is "
        "offline or not this device's\"\n"
        "fi\n",
        q, FormatCpuList(tier.cpus));
  }
  if (tier.cpu_quota) {
    const auto quota =
        std::max<int64_t>(std::llround(*tier.cpu_quota * double(kPeriodUs)), int64_t{1000});
    s += fmt::format(
        "mk cpu {0}; C=$d\n"
        "if v2 \"$C\"; then put \"$C/cpu.max\" \"{2} {1}\"; else\n"
        "  put \"$C/cpu.cfs_period_us\" {1}\n"
        "  put \"$C/cpu.cfs_quota_us\" {2}\n"
        "fi\n",
        q, kPeriodUs, quota);
  }
  if (tier.memory_bytes) {
    // Swap counts against the cap: v1 caps memory and swap together, v2 allows no swap.
    s += fmt::format(
        "mk memory {0}; M=$d\n"
        "if v2 \"$M\"; then\n"
        "  put \"$M/memory.max\" {1}\n"
        "  if [ -e \"$M/memory.swap.max\" ]; then put \"$M/memory.swap.max\" 0; fi\n"
        "else\n"
        "  put \"$M/memory.limit_in_bytes\" {1}\n"
        "  if [ -e \"$M/memory.memsw.limit_in_bytes\" ]; then put "
        "\"$M/memory.memsw.limit_in_bytes\" {1}; fi\n"
        "fi\n",
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
  return fmt::format(
      "for d in {}; do echo $$ > \"$d/cgroup.procs\" || {{ echo \"pipette: cannot join the "
      "tier's cgroup $d\" >&2; exit 97; }}; done",
      ShellJoin(Folders(cgroups)));
}

std::string TierReadScript(const TierCgroups& cgroups, int64_t pid, bool reset_peak) {
  std::string s;
  if (auto it = cgroups.find("memory"); it != cgroups.end()) {
    const std::string m = ShellQuote(it->second);
    // v1: the peak since it was last reset; v2 (memory.peak, Linux 5.19) cannot be reset from a
    // shell, so it is the peak since the worker started (memory.peak_scope says which).
    s += fmt::format("if [ -e {0}/memory.max_usage_in_bytes ]; then\n", m);
    if (reset_peak) s += fmt::format("  echo 0 > {}/memory.max_usage_in_bytes\n", m);
    s += fmt::format(
        "  for f in max_usage_in_bytes limit_in_bytes failcnt; do echo \"memory.$f $(cat "
        "{0}/memory.$f)\"; done\n"
        "  sed 's/^/memory.oom_control./' {0}/memory.oom_control\n"
        "  echo 'memory.peak_scope cell'\n"
        "else\n"
        "  for f in peak max current; do [ -e {0}/memory.$f ] && echo \"memory.$f $(cat "
        "{0}/memory.$f)\"; done\n"
        "  sed 's/^/memory.events./' {0}/memory.events\n"
        "  echo 'memory.peak_scope worker'\n"
        "fi\n",
        m);
  }
  if (auto it = cgroups.find("cpu"); it != cgroups.end()) {
    // v1 counts throttled_time in ns, v2 throttled_usec.
    s += fmt::format("sed 's/^/cpu./' {}/cpu.stat\n", ShellQuote(it->second));
  }
  if (auto it = cgroups.find("cpuset"); it != cgroups.end()) {
    // Android's v1 cpuset has no prefix; v2 says which CPUs are in effect.
    s += fmt::format(
        "echo \"cpuset.cpus $(cat {0}/cpuset.cpus 2>/dev/null || cat {0}/cpus)\"\n"
        "[ -e {0}/cpuset.cpus.effective ] && echo \"cpuset.cpus.effective $(cat "
        "{0}/cpuset.cpus.effective)\"\n",
        ShellQuote(it->second));
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
  return TierRemoveScript(Folders(cgroups));
}

std::string TierRemoveScript(const std::vector<std::string>& folders) {
  const std::string joined = ShellJoin(folders);
  // Exits non-zero when a folder is still there (its worker not gone yet): tried again later.
  return fmt::format(
      "for d in {0}; do i=0; while [ -d \"$d\" ] && ! rmdir \"$d\" 2>/dev/null && [ $i -lt 20 ]; "
      "do i=$((i+1)); sleep 0.1; done; done; for d in {0}; do [ -d \"$d\" ] && exit 1; done; "
      "true",
      joined);
}

std::string TierCgroupName(const std::string& host_tag, int64_t pid, int64_t start_ticks,
                           int64_t ms, int n) {
  return fmt::format("pipette-{}-{}-{}-{}-{}", host_tag, pid, start_ticks, ms, n);
}

std::string TierHostTag(const std::string& identity) {
  uint32_t h = 2166136261u;
  for (unsigned char c : identity) {
    h ^= c;
    h *= 16777619u;
  }
  return fmt::format("{:08x}", h);
}

std::string TierHostTag(const ProcessIdentity& self) {
  return TierHostTag(fmt::format("{}\n{}\n{}", self.host, self.machine_id, self.pid_ns)) +
         TierHostTag(self.boot_id);
}

std::optional<TierOwner> TierCgroupOwner(const std::string& folder) {
  const std::string name = folder.substr(folder.find_last_of('/') + 1);
  std::vector<std::string> parts;
  std::istringstream in(name);
  for (std::string part; std::getline(in, part, '-');) parts.push_back(part);
  if (parts.size() != 6 || parts[0] != "pipette" || parts[1].size() != 16 ||
      parts[1].find_first_not_of("0123456789abcdef") != std::string::npos) {
    return std::nullopt;
  }
  for (size_t i = 2; i < parts.size(); ++i) {
    // A pid has at most 7 digits (Linux's limit is 4194304), the other numbers at most 18: never
    // out of range.
    if (parts[i].empty() || parts[i].size() > (i == 2 ? 7u : 18u) ||
        parts[i].find_first_not_of("0123456789") != std::string::npos) {
      return std::nullopt;
    }
  }
  return TierOwner{parts[1], std::stoll(parts[2]), std::stoll(parts[3])};
}

std::string TierListScript() {
  // v1: anywhere in the controller's hierarchy (each command may run in a cgroup of its own, as
  // a login session or a service does); v2: the root, where they are made.
  return std::string(kCgFunction) +
         "for c in cpuset cpu memory; do m=$(v1 $c); if [ -n \"$m\" ]; then "
         "find \"$m\" -maxdepth 8 -type d -name 'pipette-*' 2>/dev/null; "
         "else b=$(base $c 2>/dev/null) || continue; "
         "for d in \"$b\"/pipette-*; do [ -d \"$d\" ] && echo \"$d\"; done; fi; done; true\n";
}

std::string TierVersionsScript(const Tier& tier) {
  std::string s = kCgFunction;
  for (const char* c : {"cpuset", "cpu", "memory"}) {
    const bool used = (std::string_view(c) == "cpuset" && !tier.cpus.empty()) ||
                      (std::string_view(c) == "cpu" && tier.cpu_quota) ||
                      (std::string_view(c) == "memory" && tier.memory_bytes);
    if (!used) continue;
    s += fmt::format(
        "if b=$(base {0} 2>/dev/null); then if v2 \"$b\"; then echo '{0} v2'; else echo '{0} v1'; "
        "fi; else echo '{0} none'; fi\n",
        c);
  }
  return s;
}

std::vector<std::string> ParseTierList(const std::string& printed) {
  std::vector<std::string> out;
  std::istringstream in(printed);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("/") && std::find(out.begin(), out.end(), line) == out.end()) {
      out.push_back(line);
    }
  }
  return out;
}

std::string FormatCpuList(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::vector<std::string> ranges;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    ranges.push_back(j == i ? std::to_string(cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]));
    i = j + 1;
  }
  return fmt::format("{}", fmt::join(ranges, ","));
}

std::optional<std::vector<int>> ParseCpuList(const std::string& text) {
  std::vector<int> cpus;
  if (text.ends_with(',')) return std::nullopt;
  std::istringstream in(text);
  for (std::string range; std::getline(in, range, ',');) {
    const size_t dash = range.find('-');
    const std::string a = range.substr(0, dash);
    const std::string b = dash == std::string::npos ? a : range.substr(dash + 1);
    auto number = [](const std::string& s) -> std::optional<int> {
      if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos) {
        return std::nullopt;
      }
      return std::stoi(s);
    };
    auto lo = number(a), hi = number(b);
    if (!lo || !hi || *hi < *lo) return std::nullopt;
    for (int c = *lo; c <= *hi; ++c) cpus.push_back(c);
  }
  if (cpus.empty()) return std::nullopt;
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::optional<int64_t> TierPeakBytes(const json& reading) {
  if (auto v1 = Number(reading, "memory.max_usage_in_bytes")) return v1;
  return Number(reading, "memory.peak");
}

std::optional<int64_t> TierCapBytes(const json& reading) {
  if (auto v1 = Number(reading, "memory.limit_in_bytes")) return v1;
  return Number(reading, "memory.max");
}

bool OomKilled(const json& start, const json& end) {
  for (const char* key : {"memory.oom_control.oom_kill", "memory.events.oom_kill"}) {
    if (auto kills = Number(end, key)) return *kills > Number(start, key).value_or(0);
  }
  // A kernel before 4.13 counts no kills: the cell failed with the peak at its cap (within a
  // page of it).
  auto peak = TierPeakBytes(end);
  auto cap = TierCapBytes(end);
  return peak && cap && *peak + 4096 >= *cap;
}

}  // namespace pipette::env
