// The ops about the worker itself (docs/protocol.md): hello, reset_peak_memory, memory,
// shutdown.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/protocol/message.h"
#include "pipette/protocol/ops.h"
#include "pipette/protocol/version.h"

namespace pipette::protocol {

using HelloRequest = BareRequest<op::kHello>;

struct HelloResponse {
  int64_t protocol = kProtocolVersion;
  std::string runtime;                                      // "llama.cpp"
  std::string runtime_version;                              // "0.3.36"
  nlohmann::json runtime_build = nlohmann::json::object();  // free-form build facts
  int64_t pid = 0;
  // The ops this worker serves (an optional field: absent, every op of its protocol version).
  std::vector<std::string> ops;

  nlohmann::ordered_json ToJson() const;
  static Result<HelloResponse> FromJson(const nlohmann::json& j);
};

using ResetPeakMemoryRequest = BareRequest<op::kResetPeakMemory>;

struct ResetPeakMemoryResponse {
  bool supported = false;  // whether the high-water mark could be reset
  int64_t rss = 0;         // bytes (Linux: VmRSS)
  int64_t hwm = 0;         // bytes (Linux: VmHWM)

  nlohmann::ordered_json ToJson() const;
  static Result<ResetPeakMemoryResponse> FromJson(const nlohmann::json& j);
};

using MemoryRequest = BareRequest<op::kMemory>;

struct MemoryResponse {
  int64_t rss = 0;
  int64_t hwm = 0;
  // Pages swapped out (Linux: VmSwap) now, and the largest resident + swapped footprint
  // (VmRSS + VmSwap) the worker saw at the end of a request since the last reset_peak_memory:
  // a phone under memory pressure swaps to zram, and swapped pages are not in VmHWM
  // (docs/metrics.md "peak RSS"). Absent (nullopt) where the kernel reports no VmSwap.
  std::optional<int64_t> swap;
  std::optional<int64_t> footprint_peak;

  nlohmann::ordered_json ToJson() const;
  static Result<MemoryResponse> FromJson(const nlohmann::json& j);
};

using ShutdownRequest = BareRequest<op::kShutdown>;

struct ShutdownResponse {
  nlohmann::ordered_json ToJson() const { return nlohmann::ordered_json::object(); }
  static Result<ShutdownResponse> FromJson(const nlohmann::json& j) {
    return Checked(FieldReader(j, ResponseName(op::kShutdown)), ShutdownResponse{});
  }
};

}  // namespace pipette::protocol
