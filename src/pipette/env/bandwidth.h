// The device's measured memory bandwidth, the figure bw_util divides by (docs/metrics.md "memory
// bandwidth"). It is measured on the device by pipette-probe (workers/probe), a program of its
// own staged beside the worker, never in the controller: its three arrays (up to 1 GiB each)
// would otherwise be the controller's memory. Here: what the controller asks the probe and what
// it makes of the answer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/util/command.h"
#include "pipette/util/result.h"

namespace pipette::env {

// The probe's file name, beside the workers built for an architecture.
inline constexpr std::string_view kProbeProgram = "pipette-probe";

// Bytes per array: max(64 MiB, 4 x the last-level cache), capped at 1 GiB and, when
// mem_available_bytes is known (non-zero), at an eighth of it so the three arrays never crowd
// the device; at least 4 MiB. Pass 0 for an unknown value.
size_t DefaultArrayBytes(size_t llc_bytes, size_t mem_available_bytes);

// The probe's arguments (after the program) for a device with `facts` (a fingerprint: its
// cache_l2_bytes / cache_l3_bytes) and `mem_available_bytes` free now (-1: unknown).
std::vector<std::string> BandwidthProbeArgs(const nlohmann::json& facts,
                                            int64_t mem_available_bytes);

// The probe's one JSON line as the fingerprint's memory_bandwidth {triad_bytes_per_s,
// copy_bytes_per_s, array_bytes, threads, repetitions}; an error saying what is wrong with it.
Result<nlohmann::json> ParseBandwidthReply(std::string_view out);

// memory_bandwidth from the probe's run `ran` (`where`: the program as started, for the
// message): the reply, or {"na": why} when it could not start, failed or answered nonsense.
nlohmann::json BandwidthFact(const Result<CommandResult>& ran, const std::string& where);

}  // namespace pipette::env
