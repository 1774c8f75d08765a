// What generating one token reads from memory, from a GGUF file's tensor table and shape: the
// bytes per token that bw_util multiplies by (docs/metrics.md "bw_util") and `pipette predict`
// scales by. A model, not a measurement: each weight read once per token, and the KV cache of the
// positions each layer attends to (a sliding-window layer: at most its window).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/model/gguf.h"
#include "pipette/util/result.h"

namespace pipette::model {

// Layers alike in their KV cache: elements of K and of V per position, per layer.
struct KvLayers {
  int64_t count = 0;
  int64_t k_per_position = 0;  // n_head_kv x key_length
  int64_t v_per_position = 0;  // n_head_kv x value_length
  int64_t window = 0;          // sliding-window attention: positions attended at most; 0: all
};

struct TokenReads {
  // Every tensor once, but the token embedding: one row (the input token's), and all of it again
  // when the output projection is tied to it (no output.weight).
  int64_t weight_bytes = 0;
  bool output_tied = false;
  std::vector<KvLayers> kv;  // in layer order, consecutive alike layers merged
  // How the KV shape was found: "GGUF shape" and, for sliding-window layers, where their pattern
  // came from ("the file's sliding_window_pattern", "llama.cpp's gemma3 pattern: 5 of every 6").
  std::string kv_source;
};

// The reads of `file`; an error naming what the shape lacks (no block_count, a per-layer
// head_count_kv array, a sliding window whose layer pattern is not known).
Result<TokenReads> TokenReadsOf(const GgufFile& file);

nlohmann::json ToJson(const TokenReads& reads);
// What ToJson wrote; nullopt for anything else.
std::optional<TokenReads> TokenReadsFromJson(const nlohmann::json& j);

// Bytes per element of a KV-cache type as llama.cpp names it (type_k, type_v: f32, f16, bf16,
// q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl); nullopt for another.
std::optional<double> KvTypeBytes(std::string_view type);

// Bytes of KV cache read to generate the token at `positions` attended (itself included).
double KvReadBytes(const TokenReads& reads, int64_t positions, double k_element_bytes,
                   double v_element_bytes);

// Mean bytes read per generated token by a tg of `n_gen` tokens after `depth` tokens of context
// (the tokens attend to depth+1 ... depth+n_gen positions).
double TgBytesPerToken(const TokenReads& reads, int64_t depth, int64_t n_gen,
                       double k_element_bytes, double v_element_bytes);

}  // namespace pipette::model
