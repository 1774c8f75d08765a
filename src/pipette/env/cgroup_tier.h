// An emulated device tier (a device entry's `tier:`, docs/config.md "Emulated tiers"): one machine
// stands in for a smaller one by running each worker in a cgroup of its own with a cpuset, a CPU
// quota and a memory cap (the cpuset, cpu and memory controllers: each from cgroup v1 where v1 has
// it, else from cgroup v2, which recent Linux distributions have alone). Everything here is
// a shell script for the device's sh, so a tier works the same on this machine and on a board or a
// phone reached through its shell; device/tiered_device.h runs the scripts. Results measured
// under a tier are labelled `emulated tier` in every output: a quota and a cap change the speed
// and the memory a machine has, not its cores, caches or memory bandwidth.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/env/process.h"
#include "pipette/util/result.h"

namespace pipette::env {

struct Tier {
  std::vector<int> cpus;                // the cpuset: these CPUs only; empty: every CPU
  std::optional<double> cpu_quota;      // CPUs' worth of time per period (0.5: half of one CPU)
  std::optional<int64_t> memory_bytes;  // the memory cap (swap included where it is accounted)

  bool Empty() const { return cpus.empty() && !cpu_quota && !memory_bytes; }
  // {cpus: [0], cpu_quota: 0.5, memory_bytes: N}: the keys set, as a device spec keeps them.
  nlohmann::json ToJson() const;
  static Tier FromJson(const nlohmann::json& j);
  // "emulated tier: cpus 0, quota 0.5 CPU, memory 512.00 MiB" (what every output shows).
  std::string Label() const;
};

// The cgroup folders of one worker's tier: controller ("cpuset", "cpu", "memory") -> folder.
using TierCgroups = std::map<std::string, std::string>;

// The name of a worker's cgroups: "pipette-TAG-PID-START-MS-N": TAG the controller's TierHostTag,
// PID its pid and START its start time (clock ticks after boot), MS the clock (ms since 1970) and N
// the count of workers started by that device. Unique on the device whoever else runs tiers there,
// and says whose they are: a controller of this host can tell whether the one named is alive.
std::string TierCgroupName(const std::string& host_tag, int64_t pid, int64_t start_ticks,
                           int64_t ms, int n);
// Eight hex digits (FNV-1a) of a text.
std::string TierHostTag(const std::string& identity);
// Sixteen: eight of what tells this controller's host apart from every other that may share a
// device (host name, machine id, pid namespace), then eight of its boot (boot id): a cgroup of this
// host's earlier boot is an ended controller's.
std::string TierHostTag(const ProcessIdentity& self);
// Whose cgroups a folder of that name is; nullopt for any other name.
struct TierOwner {
  std::string host_tag;  // sixteen hex digits
  int64_t pid = 0;
  int64_t start_ticks = 0;
};
std::optional<TierOwner> TierCgroupOwner(const std::string& folder);

// Prints every folder named "pipette-*" where the create script makes cgroups (anywhere in each
// controller's v1 hierarchy, or at the v2 root), one a line: what a controller killed before it
// could remove its cgroups left behind, among the live runs' own.
std::string TierListScript();
// Prints "CONTROLLER v1", "CONTROLLER v2" or "CONTROLLER none" for each controller the tier uses:
// which cgroup version the device gives it (its fingerprint records them).
std::string TierVersionsScript(const Tier& tier);
// The folders it printed, each once.
std::vector<std::string> ParseTierList(const std::string& printed);

// Makes the cgroups `name` (in cgroup v1 under the shell's own cgroup of each controller the tier
// needs; in v2 one folder at the root of the v2 hierarchy, the controllers turned on for it) and
// writes the tier's limits into them; prints one line "cgroup CONTROLLER FOLDER" for each. A
// controller neither version has, or a limit the kernel refuses, exits non-zero saying which, with
// what it made removed.
std::string TierCreateScript(const Tier& tier, const std::string& name);
// The folders TierCreateScript printed; an error when a line is not one of its.
Result<TierCgroups> ParseTierCgroups(const std::string& printed);

// Shell commands that move the shell running them into the cgroups (a worker's command runs them
// and then execs the worker, which so starts inside its tier).
std::string TierJoinPrelude(const TierCgroups& cgroups);

// Prints the cgroups' counters as "key value" lines, under the kernel's own names: cpu.stat's
// (cpu.nr_periods, cpu.nr_throttled, and cpu.throttled_time in ns in v1, cpu.throttled_usec in v2);
// in v1 memory.max_usage_in_bytes (the peak), memory.limit_in_bytes, memory.failcnt and
// memory.oom_control.oom_kill; in v2 memory.peak, memory.max, memory.current and memory.events.*
// (oom_kill among them); memory.peak_scope (`cell`, or `worker` in v2, whose peak cannot be reset);
// cpuset.cpus; and the process `pid`'s worker.cpus_allowed_list (its affinity, while it runs).
// With reset_peak a v1 memory peak is reset first (the peak of one cell).
std::string TierReadScript(const TierCgroups& cgroups, int64_t pid, bool reset_peak);
// The lines as JSON: whole numbers as numbers, the rest as text.
nlohmann::json ParseTierReading(const std::string& printed);

// Removes the cgroups (each once empty: tries for up to two seconds, for a worker still exiting);
// exits non-zero when one is still there.
std::string TierRemoveScript(const TierCgroups& cgroups);
std::string TierRemoveScript(const std::vector<std::string>& folders);

// A kernel CPU list ("0-1,3", as cpuset.cpus and Cpus_allowed_list write it) as CPU numbers in
// order; nullopt when it is not one. FormatCpuList writes one as the kernel does.
std::optional<std::vector<int>> ParseCpuList(const std::string& text);
std::string FormatCpuList(std::vector<int> cpus);

// A reading's memory peak and cap, from cgroup v1's or v2's keys; nullopt where it has none.
std::optional<int64_t> TierPeakBytes(const nlohmann::json& reading);
std::optional<int64_t> TierCapBytes(const nlohmann::json& reading);

// What a failed cell's tier readings say, from the reading at its start and at its end: the kernel
// killed its worker for the memory cap (memory.oom_control.oom_kill or, in v2,
// memory.events.oom_kill grew; on a kernel before 4.13,
// which has no such counter, the peak reached the cap).
bool OomKilled(const nlohmann::json& start, const nlohmann::json& end);

}  // namespace pipette::env
