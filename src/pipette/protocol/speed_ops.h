// The speed ops (docs/protocol.md): pp (prompt processing), tg (token generation), ttft (time
// to first token). Responses carry raw timestamps and counts only; the controller derives every
// figure (docs/metrics.md).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/protocol/message.h"
#include "pipette/protocol/ops.h"

namespace pipette::protocol {

struct PpRequest {
  TokenIds tokens;
  std::optional<int64_t> n_batch;  // absent: the context's
  TokenIds prefix{};  // decoded first, untimed (pp at a depth); may be empty, then not sent

  nlohmann::json ToJson() const;
  static Result<PpRequest> FromJson(const nlohmann::json& j);
};

struct PpResponse {
  int64_t n_tokens = 0;
  int64_t t_start_ns = 0, t_end_ns = 0;
  std::vector<int64_t> batch_end_ns;  // one per batch
  // The runtime's own counters, for cross-checking only (llama.cpp: llama_perf_context).
  nlohmann::json runtime_perf = nlohmann::json::object();

  nlohmann::ordered_json ToJson() const;
  static Result<PpResponse> FromJson(const nlohmann::json& j);
};

struct TgRequest {
  TokenIds prompt;  // decoded first, untimed; may be empty
  int32_t first_token = 0;
  int64_t n_gen = 0;
  std::optional<int64_t> n_batch;

  nlohmann::json ToJson() const;
  static Result<TgRequest> FromJson(const nlohmann::json& j);
};

struct TgResponse {
  int64_t n_gen = 0;
  int64_t t_start_ns = 0;
  std::vector<int64_t> token_end_ns;  // one per step
  TokenIds tokens;                    // the id each step sampled
  nlohmann::json runtime_perf = nlohmann::json::object();

  nlohmann::ordered_json ToJson() const;
  static Result<TgResponse> FromJson(const nlohmann::json& j);
};

struct TtftRequest {
  std::string text;
  std::optional<int64_t> n_batch;
  bool add_special = true;
  bool parse_special = false;

  nlohmann::json ToJson() const;
  static Result<TtftRequest> FromJson(const nlohmann::json& j);
};

struct TtftResponse {
  int64_t n_prompt_tokens = 0;
  int64_t t_start_ns = 0, t_tokenized_ns = 0, t_first_token_ns = 0;
  int64_t token = 0;
  nlohmann::json runtime_perf = nlohmann::json::object();

  nlohmann::ordered_json ToJson() const;
  static Result<TtftResponse> FromJson(const nlohmann::json& j);
};

// e2e: a P-token prompt and N generated tokens, one request timed from its start: the prompt is
// decoded in batches, its last logits give the first generated token, each of the other N - 1 is
// decoded and the next chosen (greedy).
struct E2eRequest {
  TokenIds prompt;  // P >= 1 tokens
  int64_t n_gen = 0;
  std::optional<int64_t> n_batch;

  nlohmann::json ToJson() const;
  static Result<E2eRequest> FromJson(const nlohmann::json& j);
};

struct E2eResponse {
  int64_t n_prompt = 0;
  int64_t n_gen = 0;
  int64_t t_start_ns = 0;             // before the prompt's first batch
  std::vector<int64_t> token_end_ns;  // when each generated token was chosen (the first: TTFT)
  TokenIds tokens;
  nlohmann::json runtime_perf = nlohmann::json::object();

  nlohmann::ordered_json ToJson() const;
  static Result<E2eResponse> FromJson(const nlohmann::json& j);
};

}  // namespace pipette::protocol
