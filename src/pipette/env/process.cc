#include "pipette/env/process.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <filesystem>
#include <limits>
#include <optional>

#include "pipette/util/files.h"
#include "pipette/util/json_read.h"

namespace pipette::env {
namespace fs = std::filesystem;

namespace {

// A /proc or /etc file; "" when it cannot be read.
std::string ReadAll(const std::string& path) {
  auto text = ReadFileToString(path);
  return text ? *text : std::string();
}

// Its first line, without the line break or trailing blanks.
std::string ReadTrimmed(const std::string& path) {
  std::string s = ReadAll(path);
  s.erase(std::min(s.find('\n'), s.size()));
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

// The fields after the command name: "S ppid pgrp ..." (field 3 onwards).
std::optional<std::vector<std::string_view>> FieldsAfterComm(const std::string& stat) {
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::vector<std::string_view> fields;
  std::string_view rest(stat);
  rest.remove_prefix(close + 1);
  while (!rest.empty()) {
    const size_t start = rest.find_first_not_of(" \n");
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    const size_t end = rest.find_first_of(" \n");
    fields.push_back(rest.substr(0, end));
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end);
  }
  return fields;
}

template <class T>
std::optional<T> Number(std::string_view s) {
  T v{};
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

nlohmann::json ProcessIdentity::ToJson() const {
  return {{"host", host}, {"machine_id", machine_id},  {"boot_id", boot_id}, {"pid_ns", pid_ns},
          {"pid", pid},   {"start_ticks", start_ticks}};
}

ProcessIdentity ProcessIdentity::FromJson(const nlohmann::json& j) {
  // Read back from a store or another process's lock file: every field type-checked (a value of
  // another type, or a number past what it holds, reads as absent), never an exception.
  ProcessIdentity p;
  const nlohmann::json& pid = json_read::Ref(j, "pid");
  if (!pid.is_number_integer()) return p;
  const std::optional<int64_t> id = json_read::AsInt(pid);
  if (!id || *id <= 0 || *id > std::numeric_limits<int>::max()) return p;
  p.host = json_read::String(j, "host");
  p.machine_id = json_read::String(j, "machine_id");
  p.boot_id = json_read::String(j, "boot_id");
  p.pid_ns = json_read::String(j, "pid_ns");
  p.pid = static_cast<int>(*id);
  const std::optional<int64_t> ticks = json_read::Int(j, "start_ticks");
  p.start_ticks = ticks && *ticks > 0 ? static_cast<uint64_t>(*ticks) : 0;
  return p;
}

std::string ProcessIdentity::Describe() const {
  if (empty()) return "an unknown process";
  return fmt::format("pid {} on {}", pid, host.empty() ? "an unnamed host" : host);
}

std::optional<uint64_t> ParseStatStartTicks(const std::string& stat) {
  auto f = FieldsAfterComm(stat);
  // Field 3 is the first after the command name; field 22 is the start time.
  if (!f || f->size() < 20) return std::nullopt;
  return Number<uint64_t>((*f)[19]);
}

std::optional<int> ParseStatParent(const std::string& stat) {
  auto f = FieldsAfterComm(stat);
  if (!f || f->size() < 2) return std::nullopt;
  return Number<int>((*f)[1]);
}

ProcessIdentity LinuxProcessTable::Self() const {
  ProcessIdentity p;
  utsname uts{};
  if (::uname(&uts) == 0) p.host = uts.nodename;
  p.machine_id = ReadTrimmed("/etc/machine-id");
  p.boot_id = ReadTrimmed("/proc/sys/kernel/random/boot_id");
  std::error_code ec;
  p.pid_ns = fs::read_symlink("/proc/self/ns/pid", ec).string();
  p.pid = static_cast<int>(::getpid());
  p.start_ticks = StartTicks(p.pid).value_or(0);
  return p;
}

bool LinuxProcessTable::Exists(int pid) const {
  if (pid <= 0) return false;
  // EPERM: it exists, but belongs to another user.
  return ::kill(pid, 0) == 0 || errno == EPERM;
}

std::optional<uint64_t> LinuxProcessTable::StartTicks(int pid) const {
  if (pid <= 0) return std::nullopt;
  const std::string stat = ReadAll(fmt::format("/proc/{}/stat", pid));
  if (stat.empty()) return std::nullopt;
  return ParseStatStartTicks(stat);
}

std::vector<ProcessTable::Entry> LinuxProcessTable::Programs(const std::string& prefix) const {
  std::vector<Entry> out;
  std::error_code ec;
  for (const auto& d : fs::directory_iterator("/proc", ec)) {
    const std::string name = d.path().filename().string();
    auto pid = Number<int>(name);
    if (!pid) continue;
    // comm, not exe: readable for every user's processes.
    const std::string program = ReadTrimmed((d.path() / "comm").string());
    if (program.empty() || !program.starts_with(prefix)) continue;
    const std::string stat = ReadAll((d.path() / "stat").string());
    auto fields = FieldsAfterComm(stat);
    if (fields && !fields->empty() && ((*fields)[0] == "Z" || (*fields)[0] == "X")) {
      continue;  // ended, not yet reaped: it measures nothing
    }
    Entry e;
    e.pid = *pid;
    e.ppid = ParseStatParent(stat).value_or(0);
    e.program = program;
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<int> LinuxProcessTable::OthersHolding(const std::string& path) const {
  std::vector<int> out;
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(path, ec);
  if (ec) return out;
  const int self = static_cast<int>(::getpid());
  for (const auto& d : fs::directory_iterator("/proc", ec)) {
    auto pid = Number<int>(d.path().filename().string());
    if (!pid || *pid == self) continue;
    std::error_code fd_ec;
    for (const auto& fd : fs::directory_iterator(d.path() / "fd", fd_ec)) {
      std::error_code link_ec;
      if (fs::read_symlink(fd.path(), link_ec) == target && !link_ec) {
        out.push_back(*pid);
        break;
      }
    }
  }
  return out;
}

Liveness CheckLiveness(const ProcessIdentity& who, const ProcessTable& table) {
  if (who.empty()) return Liveness::kUnknown;
  const ProcessIdentity self = table.Self();
  // Another host: a different name, or a different machine id where both have one.
  if (who.host != self.host) return Liveness::kElsewhere;
  if (!who.machine_id.empty() && !self.machine_id.empty() && who.machine_id != self.machine_id) {
    return Liveness::kElsewhere;
  }
  // Another container of this host: its pids are not ours to look up.
  if (!who.pid_ns.empty() && !self.pid_ns.empty() && who.pid_ns != self.pid_ns) {
    return Liveness::kElsewhere;
  }
  // This host, booted since: every process of the earlier boot is gone.
  if (!who.boot_id.empty() && !self.boot_id.empty() && who.boot_id != self.boot_id) {
    return Liveness::kGone;
  }
  if (!table.Exists(who.pid)) return Liveness::kGone;
  const auto ticks = table.StartTicks(who.pid);
  if (!ticks) return Liveness::kAlive;  // a pid that runs, whose start time is hidden: keep it
  return *ticks == who.start_ticks ? Liveness::kAlive : Liveness::kGone;
}

}  // namespace pipette::env
