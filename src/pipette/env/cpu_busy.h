// How busy a device's CPUs are with work other than Pipette's own, over a short window: the
// readiness gate's first question (docs/running.md "A clean device"). The load average cannot
// answer it: after a 2-thread repetition it is about 2 on a 2-core machine by Pipette's own
// doing. Instead: the CPU time all processes used over the window (/proc/stat), less what
// Pipette's own processes used (/proc/<pid>/stat of the controller and every process under it),
// as a share of the time all CPUs had.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "pipette/env/machine_files.h"

namespace pipette::env {

// The aggregate "cpu" line of /proc/stat, in clock ticks: time busy (everything but idle and
// iowait) and in all.
struct CpuTimes {
  int64_t busy = 0;
  int64_t total = 0;
};
std::optional<CpuTimes> ParseProcStat(std::string_view text);

// One line of /proc/<pid>/stat: its parent and the CPU time it used (utime + stime, ticks).
struct PidStat {
  int64_t pid = 0;
  int64_t ppid = 0;
  int64_t ticks = 0;
};
std::optional<PidStat> ParsePidStat(std::string_view text);

// One reading: the CPUs' times and the CPU time of `root` and every process under it.
struct BusyReading {
  CpuTimes cpu;
  int64_t own_ticks = 0;
};
// Reads /proc/stat and every /proc/<pid>/stat from `files`; nullopt when /proc/stat is unreadable.
std::optional<BusyReading> ReadBusy(const FileSource& files, int64_t root_pid);

// The share (0..1) of all CPU time between two readings spent by processes other than the
// root's tree; nullopt when no clock tick passed between them. A process of the tree that ended
// inside the window takes its time with it, so the share errs high, never low. /proc/stat
// counts every CPU of the host, also those a container may not use.
std::optional<double> BusyOthers(const BusyReading& before, const BusyReading& after);

}  // namespace pipette::env
