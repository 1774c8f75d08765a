// bw_util (docs/metrics.md "bw_util"): how close a tg figure came to the device's memory
// bandwidth. Per generated token the runtime reads at least the model's weights in use and the
// KV cache at the token's depth (model/token_reads.h); tg t/s x those bytes / the measured triad
// bandwidth (env/bandwidth.h) is the fraction of the bandwidth decoding used. Near 1: decoding is
// bandwidth-bound there; far below: something else bounds it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "pipette/model/token_reads.h"
#include "pipette/store/store.h"

namespace pipette::metrics {

// What one cell's tg figures are held against: the model's reads, the KV-cache element sizes,
// the device's bandwidth. `na_reason` non-empty: bw_util cannot be given, and why; reads are
// still there where only the bandwidth is missing (bytes_per_token is still given).
struct Roofline {
  std::optional<model::TokenReads> reads;
  double k_bytes = 2, v_bytes = 2;  // per KV element (type_k, type_v; llama.cpp's default f16)
  bool flash_attn = true;  // flash attention skips masked positions: a window caps the reads
  bool swa_full = false;   // sliding-window layers keep every position (swa_full: true)
  int64_t swa_cells = 0;   // their smaller cache's cells as llama.cpp made it; 0: unknown
  double bandwidth = 0;    // the device's triad bytes/s
  // A served model (an endpoint runtime, the cell's runtime_build names its `endpoint`), and
  // whether Pipette started its server (then the KV cache is the server's slots' contexts).
  bool served = false;
  bool server_started = false;
  std::string na_reason;
  // The cell's model facts predate token_reads (an older Pipette wrote them): no row at all, so
  // that an older store is reported as it was.
  bool predates = false;
};

// From the cell's model facts (model_info.file.token_reads), its params (type_k, type_v,
// swa_full, flash_attn), its `context` sample's raw facts where there is one (flash attention as
// it resolved, swa_cache_cells) and the device's fingerprint (memory_bandwidth).
Roofline RooflineOf(const store::CellRecord& cell, const nlohmann::json& device_facts,
                    const nlohmann::json& context_raw = nlohmann::json());

// Mean bytes read per generated token by a tg sample's raw facts (its request's depth, its
// token count); nullopt when the reads are unknown or the sample has no tokens.
std::optional<double> TgBytesPerToken(const Roofline& roof, const nlohmann::json& raw);

// kv_bytes (docs/metrics.md "kv_bytes"), computed from the model's shape and the KV-cache types:
// what the cell's context allocated (its `context` sample: n_ctx cells for every layer, and
// swa_cache_cells for sliding-window layers when llama.cpp gave them a smaller cache)...
// A served model's is the server's: for a server Pipette started, its slots times each slot's
// context as the server reported them (`slots`, `server_n_ctx_per_slot`); none for a server
// Pipette did not start (KvBytesAllocatedNa says why).
std::optional<double> KvBytesAllocated(const Roofline& roof, const nlohmann::json& context_raw);
// Why a served model's kv_bytes_allocated_model is n/a; "" where it is given, or for a model in
// process.
std::string KvBytesAllocatedNa(const Roofline& roof, const nlohmann::json& context_raw);
// ... and what holds data after a tg sample (positions depth + n_gen; a sliding-window layer
// without the full cache keeps at most its window).
std::optional<double> KvBytesUsed(const Roofline& roof, const nlohmann::json& tg_raw);

}  // namespace pipette::metrics
