// Resident memory of this process, as Linux reports it in /proc/self (docs/protocol.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pipette/util/result.h"

namespace pipette::worker_common {

struct MemoryReading {
  int64_t rss = 0;              // VmRSS, bytes
  int64_t hwm = 0;              // VmHWM (peak resident set), bytes
  std::optional<int64_t> swap;  // VmSwap (pages swapped out), bytes; nullopt: no such line
};

// Reads VmRSS and VmHWM from /proc/self/status.
Result<MemoryReading> ReadMemory();

// Parses the text of a /proc/<pid>/status file (VmRSS and VmHWM lines, in kB; VmSwap where the
// kernel writes it).
Result<MemoryReading> ParseProcStatus(const std::string& status);

// Resets VmHWM to the current VmRSS by writing "5" to /proc/self/clear_refs; fails (with the
// reason) when the kernel does not allow it.
Status ResetPeakMemory();

}  // namespace pipette::worker_common
