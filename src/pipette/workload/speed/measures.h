// What the speed test kinds measure of one stored repetition (kinds/*.cc; docs/metrics.md
// "Speed"): its rates and latencies from the worker's clock readings, and the figures several
// kinds share: an endpoint's streams, the energy a repetition cost, a decode's use of the memory
// bandwidth. A sample's `raw` is outside data (a worker's or a server's reply, read back from a
// store): every read checks its type (util/json_read.h), a value of another type reads as absent.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/workload/speed/test_kind.h"

namespace pipette::workload::speed {

// Per-sample figures (one repetition's raw facts in, one number out).
std::optional<double> PpTokensPerSecond(const nlohmann::json& raw);
std::optional<double> TgTokensPerSecond(const nlohmann::json& raw);
// Latency of each generated token in ms: the first from t_start_ns, the rest between tokens.
std::vector<double> InterTokenLatenciesMs(const nlohmann::json& raw);
std::optional<double> RuntimeMsPerToken(const nlohmann::json& raw);  // runtime's own counters
std::optional<double> TtftMs(const nlohmann::json& raw);
// From t_start_ns to the last of token_end_ns, in seconds (a decode's span).
std::optional<double> DecodeSeconds(const nlohmann::json& raw);

// An endpoint's request (a reply with `streams`, or one that failed as a whole): its figures per
// stream and over its concurrent streams, counted in out.streams. `decode`: a tg request
// (throughput, inter-token latencies), else a ttft one. Whether the sample was one.
bool AddStreams(const store::SampleRecord& s, bool decode, SpeedRows& out);

// energy_per_token and power of a repetition whose energy was read (docs/metrics.md "energy per
// token"): the mean power between the two readings, and that power per token (power / `tps`);
// the tests whose energy cannot be given go into out.no_energy, with the reason.
void AddEnergy(const store::SampleRecord& s, std::optional<double> tps, SpeedRows& out);

// bytes_per_token, kv_bytes_used and bw_util of an in-process decode repetition
// (metrics/roofline.h); the tests whose bw_util cannot be given go into out.no_bw_util.
void AddRoofline(const DeriveInput& in, SpeedRows& out);

}  // namespace pipette::workload::speed
