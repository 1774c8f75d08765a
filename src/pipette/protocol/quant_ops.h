// The ops that make model files (docs/protocol.md): quantize (a quantized copy of a model file)
// and imatrix (an importance matrix collected with the loaded model).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/protocol/message.h"
#include "pipette/protocol/ops.h"

namespace pipette::protocol {

struct TensorTypeOverride {
  std::string pattern;  // a regular expression searched for in tensor names
  std::string type;     // a tensor type name (llama.cpp: ggml's, e.g. "q4_0")
};

struct QuantizeRequest {
  std::string input, output;
  std::string type;                  // the file type by the runtime's name ("Q4_K_M")
  std::optional<int64_t> n_threads;  // absent: the machine's hardware threads
  bool allow_requantize = true;
  std::vector<TensorTypeOverride> overrides;
  std::optional<std::string> imatrix;  // an importance-matrix file written by `imatrix`

  nlohmann::json ToJson() const;
  static Result<QuantizeRequest> FromJson(const nlohmann::json& j);
};

struct QuantizeResponse {
  int64_t t_start_ns = 0, t_end_ns = 0;
  std::optional<int64_t> output_size;  // bytes; null when it cannot be read
  std::string type;                    // the canonical name of the type used
  int64_t n_threads = 0;
  int64_t n_overrides = 0;
  int64_t n_override_tensors = 0;
  int64_t n_imatrix_entries = 0;

  nlohmann::ordered_json ToJson() const;
  static Result<QuantizeResponse> FromJson(const nlohmann::json& j);
};

struct ImatrixRequest {
  std::vector<TokenIds> chunks;  // non-empty arrays of token ids
  std::string output;
  std::optional<int64_t> n_threads;
  int64_t n_batch = 512;

  nlohmann::json ToJson() const;
  static Result<ImatrixRequest> FromJson(const nlohmann::json& j);
};

struct ImatrixResponse {
  int64_t t_start_ns = 0, t_end_ns = 0;
  int64_t n_entries = 0, n_chunks = 0, n_tokens = 0;

  nlohmann::ordered_json ToJson() const;
  static Result<ImatrixResponse> FromJson(const nlohmann::json& j);
};

}  // namespace pipette::protocol
