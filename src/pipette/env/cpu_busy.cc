#include "pipette/env/cpu_busy.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <string>

namespace pipette::env {
namespace {

// The first `max` numbers of a line (later fields may not fit in 64 bits: RLIM_INFINITY).
std::vector<int64_t> Numbers(std::string_view text, size_t max) {
  std::vector<int64_t> out;
  size_t i = 0;
  while (i < text.size() && out.size() < max) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != '\t' && text[j] != '\n') ++j;
    if (j == i) break;
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data() + i, text.data() + j, v);
    if (ec != std::errc() || end != text.data() + j) return {};
    out.push_back(v);
    i = j;
    if (i < text.size() && text[i] == '\n') break;
  }
  return out;
}

}  // namespace

std::optional<CpuTimes> ParseProcStat(std::string_view text) {
  if (!text.starts_with("cpu ")) return std::nullopt;
  const std::vector<int64_t> v = Numbers(text.substr(4, text.find('\n') - 4), 8);
  // user nice system idle iowait irq softirq steal [guest guest_nice: already in user, nice]
  if (v.size() < 4) return std::nullopt;
  CpuTimes t;
  for (size_t i = 0; i < std::min<size_t>(v.size(), 8); ++i) {
    t.total += v[i];
    if (i != 3 && i != 4) t.busy += v[i];
  }
  return t;
}

std::optional<PidStat> ParsePidStat(std::string_view text) {
  // "pid (comm) state ppid ..." where comm may hold spaces and parentheses: the last ')' ends it.
  const size_t close = text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  int64_t pid = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), pid);
  if (ec != std::errc()) return std::nullopt;
  std::string_view rest = text.substr(close + 1);
  // state, then numbers: ppid(4) pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
  // utime(14) stime(15), counting the fields of proc(5) from 1.
  const size_t state = rest.find_first_not_of(' ');
  if (state == std::string_view::npos) return std::nullopt;
  const std::vector<int64_t> v = Numbers(rest.substr(state + 1), 12);
  if (v.size() < 12) return std::nullopt;
  return PidStat{pid, v[0], v[10] + v[11]};
}

std::optional<BusyReading> ReadBusy(const FileSource& files, int64_t root_pid) {
  const std::optional<std::string> stat = files.Read("/proc/stat");
  if (!stat) return std::nullopt;
  std::optional<CpuTimes> cpu = ParseProcStat(*stat);
  if (!cpu) return std::nullopt;
  std::map<int64_t, PidStat> procs;
  for (const std::string& name : files.List("/proc")) {
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    if (auto text = files.Read("/proc/" + name + "/stat")) {
      if (auto s = ParsePidStat(*text)) procs[s->pid] = *s;
    }
  }
  BusyReading r{*cpu, 0};
  for (const auto& [pid, s] : procs) {
    // In the root's tree: the root itself, or a process whose parents lead to it.
    int64_t at = pid;
    for (int hops = 0; hops < 64 && at > 0; ++hops) {
      if (at == root_pid) {  // Pipette may itself be pid 1 (a container's first process)
        r.own_ticks += s.ticks;
        break;
      }
      if (at == 1) break;
      auto up = procs.find(at);
      if (up == procs.end()) break;
      at = up->second.ppid;
    }
  }
  return r;
}

std::optional<double> BusyOthers(const BusyReading& before, const BusyReading& after) {
  const int64_t total = after.cpu.total - before.cpu.total;
  if (total <= 0) return std::nullopt;
  const int64_t busy = after.cpu.busy - before.cpu.busy;
  const int64_t own = std::max<int64_t>(0, after.own_ticks - before.own_ticks);
  return std::clamp(double(busy - own) / double(total), 0.0, 1.0);
}

}  // namespace pipette::env
