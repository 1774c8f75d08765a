// Which process did something, and is it still there: the identity a controller records with its
// run (host, pid, start time), so a later Pipette can tell a live run from an abandoned one, and
// the process table behind an interface so that tests can fake it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace pipette::env {

// A process, identified well enough to tell it from a later one with the same pid.
struct ProcessIdentity {
  std::string host;        // hostname
  std::string machine_id;  // /etc/machine-id (stable across reboots); may be empty
  std::string boot_id;     // /proc/sys/kernel/random/boot_id (changes at every boot)
  int pid = 0;
  uint64_t start_ticks = 0;  // field 22 of /proc/PID/stat: clock ticks after boot
  // The pid namespace (/proc/self/ns/pid, "pid:[4026531836]"): containers of one host share its
  // name and boot, but not their pids. May be empty.
  std::string pid_ns;

  static ProcessIdentity Of(std::string host, std::string machine_id, std::string boot_id, int pid,
                            uint64_t start_ticks, std::string pid_ns = "") {
    ProcessIdentity p;
    p.host = std::move(host);
    p.machine_id = std::move(machine_id);
    p.boot_id = std::move(boot_id);
    p.pid = pid;
    p.start_ticks = start_ticks;
    p.pid_ns = std::move(pid_ns);
    return p;
  }
  bool empty() const { return pid <= 0; }
  nlohmann::json ToJson() const;
  // An empty identity for anything that is not an object with a pid.
  static ProcessIdentity FromJson(const nlohmann::json& j);
  std::string Describe() const;  // "pid 123 on host-a"
};

// What Pipette needs to know about the processes of this machine.
class ProcessTable {
 public:
  virtual ~ProcessTable() = default;
  virtual ProcessIdentity Self() const = 0;
  // Whether a process with that pid runs now (in this pid namespace).
  virtual bool Exists(int pid) const = 0;
  // The start time of a live process; nullopt when there is none with that pid, or when its
  // start time cannot be read (/proc mounted with hidepid).
  virtual std::optional<uint64_t> StartTicks(int pid) const = 0;
  // Live processes whose command name starts with `prefix` (e.g. "pipette-worker"): any user's.
  struct Entry {
    int pid = 0;
    int ppid = 0;
    std::string program;  // /proc/PID/comm: the program's name, cut to 15 characters
  };
  virtual std::vector<Entry> Programs(const std::string& prefix) const = 0;
  // Pids of the other processes that hold `path` open.
  virtual std::vector<int> OthersHolding(const std::string& path) const = 0;
};

// The real one, reading /proc and /etc.
class LinuxProcessTable : public ProcessTable {
 public:
  ProcessIdentity Self() const override;
  bool Exists(int pid) const override;
  std::optional<uint64_t> StartTicks(int pid) const override;
  std::vector<Entry> Programs(const std::string& prefix) const override;
  std::vector<int> OthersHolding(const std::string& path) const override;
};

// An in-memory process table for tests: processes are added and removed by hand.
class FakeProcessTable : public ProcessTable {
 public:
  explicit FakeProcessTable(ProcessIdentity self) : self_(std::move(self)) {
    live_[self_.pid] = self_.start_ticks;
  }
  void Start(int pid, uint64_t start_ticks) { live_[pid] = start_ticks; }
  void Stop(int pid) { live_.erase(pid); }
  void Hide(int pid) { hidden_.push_back(pid); }  // runs, but its start time cannot be read
  void AddProgram(Entry e) { programs_.push_back(std::move(e)); }
  void Hold(const std::string& path, int pid) { holders_[path].push_back(pid); }
  ProcessIdentity Self() const override { return self_; }
  bool Exists(int pid) const override {
    return live_.count(pid) || std::find(hidden_.begin(), hidden_.end(), pid) != hidden_.end();
  }
  std::optional<uint64_t> StartTicks(int pid) const override {
    auto it = live_.find(pid);
    if (it == live_.end()) return std::nullopt;
    return it->second;
  }
  std::vector<Entry> Programs(const std::string& prefix) const override {
    std::vector<Entry> out;
    for (const auto& e : programs_) {
      if (e.program.starts_with(prefix)) out.push_back(e);
    }
    return out;
  }
  std::vector<int> OthersHolding(const std::string& path) const override {
    auto it = holders_.find(path);
    return it == holders_.end() ? std::vector<int>{} : it->second;
  }

 private:
  ProcessIdentity self_;
  std::map<int, uint64_t> live_;
  std::vector<int> hidden_;
  std::vector<Entry> programs_;
  std::map<std::string, std::vector<int>> holders_;
};

enum class Liveness {
  kAlive,      // the same process is still running on this host (or it cannot be told apart)
  kGone,       // on this host, and that process is gone (or the pid is another process now)
  kElsewhere,  // recorded on another host or in another pid namespace: this one cannot tell
  kUnknown,    // nothing was recorded (a store written by an earlier Pipette)
};
Liveness CheckLiveness(const ProcessIdentity& who, const ProcessTable& table);

// The start time in a /proc/PID/stat line (field 22, after the parenthesised command name, which
// may itself hold spaces and parentheses); nullopt when the line does not parse.
std::optional<uint64_t> ParseStatStartTicks(const std::string& stat);
// The parent pid (field 4) of a /proc/PID/stat line.
std::optional<int> ParseStatParent(const std::string& stat);

}  // namespace pipette::env
