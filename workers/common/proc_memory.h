// Resident memory of this process, as Linux reports it in /proc/self (docs/protocol.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace pipette::llama_worker {

struct MemoryReading {
  int64_t rss = 0;  // VmRSS, bytes
  int64_t hwm = 0;  // VmHWM (peak resident set), bytes
};

// Reads VmRSS and VmHWM from /proc/self/status; nullopt when they cannot be read.
std::optional<MemoryReading> ReadMemory();

// Resets VmHWM to the current VmRSS by writing "5" to /proc/self/clear_refs. Returns false
// (with the reason in `error`) when the kernel does not allow it.
bool ResetPeakMemory(std::string* error);

}  // namespace pipette::llama_worker
