// The ops that set up and use a model (docs/protocol.md): load_model, init_context, tokenize,
// detokenize. Load and context parameters beyond the path and n_ctx are the runtime's own
// (llama.cpp: use_mmap, n_gpu_layers, n_batch, threads, cache types, ...): they travel as the
// request's other fields, and what the runtime applied as the response's other fields.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "pipette/protocol/message.h"
#include "pipette/protocol/ops.h"

namespace pipette::protocol {

struct LoadModelRequest {
  std::string path;
  nlohmann::json options = nlohmann::json::object();  // the runtime's load parameters

  nlohmann::json ToJson() const;
  static Result<LoadModelRequest> FromJson(const nlohmann::json& j);
};

// What a loaded model is, as its runtime reports it (`model` of the load_model response).
struct ModelInfo {
  std::string desc;  // "llama 135M Q4_1"
  std::optional<int64_t> n_params, size_bytes, n_ctx_train, n_layer, n_embd;
  // The vocabulary size; absent when the runtime does not say (an HTTP endpoint). The speed
  // tests draw random token ids below it and kld compares it: they need it.
  std::optional<int64_t> n_vocab;
  int64_t bos = -1;  // -1: none
  bool add_bos = false;
  int64_t eos = -1;
  nlohmann::json meta = nlohmann::json::object();  // the model file's metadata, as strings

  nlohmann::ordered_json ToJson() const;
};

struct LoadModelResponse {
  int64_t t_start_ns = 0, t_end_ns = 0;
  std::optional<int64_t> rss_before, rss_after;  // null when memory cannot be read
  ModelInfo model;
  nlohmann::json applied = nlohmann::json::object();  // what the load applied (runtime's fields)

  nlohmann::ordered_json ToJson() const;
  static Result<LoadModelResponse> FromJson(const nlohmann::json& j);
};

struct InitContextRequest {
  int64_t n_ctx = 0;
  nlohmann::json options = nlohmann::json::object();  // the runtime's context parameters

  nlohmann::json ToJson() const;
  static Result<InitContextRequest> FromJson(const nlohmann::json& j);
};

struct InitContextResponse {
  int64_t t_start_ns = 0, t_end_ns = 0;
  int64_t n_ctx = 0;  // as applied (llama.cpp pads it)
  // As applied: the tests of the cell use it; absent when the runtime has no such setting (the
  // requests then leave it to the context).
  std::optional<int64_t> n_batch;
  nlohmann::json applied = nlohmann::json::object();  // the other parameters as applied

  nlohmann::ordered_json ToJson() const;
  static Result<InitContextResponse> FromJson(const nlohmann::json& j);
};

struct TokenizeRequest {
  std::string text;
  bool add_special = true;
  bool parse_special = false;

  nlohmann::json ToJson() const;
  static Result<TokenizeRequest> FromJson(const nlohmann::json& j);
};

struct TokenizeResponse {
  TokenIds tokens;

  nlohmann::ordered_json ToJson() const;
  static Result<TokenizeResponse> FromJson(const nlohmann::json& j);
};

struct DetokenizeRequest {
  TokenIds tokens;
  bool remove_special = false;
  bool unparse_special = false;

  nlohmann::json ToJson() const;
  static Result<DetokenizeRequest> FromJson(const nlohmann::json& j);
};

struct DetokenizeResponse {
  std::string text;

  nlohmann::ordered_json ToJson() const;
  static Result<DetokenizeResponse> FromJson(const nlohmann::json& j);
};

}  // namespace pipette::protocol
