// The quality ops (docs/protocol.md): score (per-position facts of the model's distribution, or
// every logit as binary frames) and chat (greedy generation with the model's chat template).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/protocol/message.h"
#include "pipette/protocol/ops.h"

namespace pipette::protocol {

struct ScoreRequest {
  TokenIds tokens;   // at least 2
  int64_t from = 0;  // the first scored position; every position up to n - 2 is scored
  std::optional<int64_t> n_batch;
  int64_t top_k = 0;  // 0..1000
  // For each scored position, ids whose log-probabilities are wanted.
  std::optional<std::vector<TokenIds>> ids;
  bool logits = false;  // every logit as frames instead of the facts (no top_k, no ids)

  int64_t n_scored() const { return static_cast<int64_t>(tokens.size()) - 1 - from; }

  nlohmann::json ToJson() const;
  static Result<ScoreRequest> FromJson(const nlohmann::json& j);
};

// The response of a score without `logits`: per scored position p = from, from+1, ...
struct ScoreResponse {
  int64_t n_tokens = 0, from = 0;
  int64_t t_start_ns = 0, t_end_ns = 0;
  std::vector<double> logprob;    // log P(tokens[p+1] | tokens[0..p])
  std::vector<int64_t> argmax;    // the most likely id (first on ties)
  std::vector<double> logsumexp;  // of the raw logits
  // With top_k: the k most likely ids and their log-probabilities, and the rest's mass.
  std::optional<std::vector<std::vector<int64_t>>> top_ids;
  std::optional<std::vector<std::vector<double>>> top_logprobs;
  std::optional<std::vector<double>> top_tail_logprob;
  // With ids: their log-probabilities, and the rest's mass.
  std::optional<std::vector<std::vector<double>>> ids_logprob;
  std::optional<std::vector<double>> ids_tail_logprob;

  nlohmann::ordered_json ToJson() const;
  static Result<ScoreResponse> FromJson(const nlohmann::json& j);
};

// The response line of a score with `logits: true`: `frames` frames of `n_vocab` logits follow
// (frames.h), one per scored position.
struct ScoreFramesResponse {
  int64_t n_tokens = 0, from = 0;
  int64_t frames = 0;
  int64_t n_vocab = 0;
  int64_t t_start_ns = 0;

  nlohmann::ordered_json ToJson() const;
  static Result<ScoreFramesResponse> FromJson(const nlohmann::json& j);
};

struct ChatMessage {
  std::string role;
  std::string content;
};

struct ChatRequest {
  // Exactly one of the three: messages through the model's chat template, a prompt already
  // rendered (by `render_chat`, for a runtime without a template engine: tokenized as a
  // templated prompt is), or raw prompt tokens.
  std::vector<ChatMessage> messages;
  std::optional<std::string> prompt;
  std::optional<TokenIds> prompt_tokens;
  // Template variables (JSON scalars), only with messages.
  nlohmann::json template_options = nlohmann::json::object();
  int64_t max_tokens = 0;  // at least 1
  std::optional<int64_t> n_batch;
  // Stop sequences (at most kMaxStops, each 1..kMaxStopBytes bytes): generation ends once the
  // generated text holds one of them (docs/protocol.md "chat").
  std::vector<std::string> stop;
  static constexpr size_t kMaxStops = 16, kMaxStopBytes = 256;

  nlohmann::json ToJson() const;
  static Result<ChatRequest> FromJson(const nlohmann::json& j);
};

struct ChatResponse {
  // With messages: the template that rendered the prompt (null with prompt_tokens), where it
  // came from, the options used and the thinking switch the template saw.
  std::optional<std::string> template_text;
  std::optional<std::string> template_origin;
  std::optional<nlohmann::json> template_options;
  std::optional<bool> enable_thinking;
  std::string prompt;  // the rendered prompt text
  int64_t n_prompt_tokens = 0;
  TokenIds tokens;   // generated, the end-of-generation token excluded
  std::string text;  // their text
  std::string stop;  // "eog", "max_tokens", "stop" (a stop sequence) or "failed"
  int64_t t_start_ns = 0, t_first_token_ns = 0, t_end_ns = 0;

  nlohmann::ordered_json ToJson() const;
  static Result<ChatResponse> FromJson(const nlohmann::json& j);
};

// `render_chat`: a chat template given as text, rendered with llama.cpp's engine exactly as
// `chat` renders the loaded model's (no model needed), so that a runtime without a template
// engine is sent the same prompt bytes.
struct RenderChatRequest {
  std::string template_text;                     // "template"; "" : llama.cpp's ChatML
  std::optional<std::string> template_tool_use;  // the model's tool-use template, if any
  std::string bos_text, eos_text;                // the model's BOS and EOS token texts
  bool add_bos = false;  // the vocabulary adds BOS itself: a BOS text the template writes goes
  bool add_eos = false;
  std::vector<ChatMessage> messages;
  nlohmann::json template_options = nlohmann::json::object();

  nlohmann::json ToJson() const;
  static Result<RenderChatRequest> FromJson(const nlohmann::json& j);
};

struct RenderChatResponse {
  std::string template_text;  // "template": the template that rendered
  std::string template_origin;
  nlohmann::json template_options = nlohmann::json::object();
  bool enable_thinking = false;
  std::string prompt;

  nlohmann::ordered_json ToJson() const;
  static Result<RenderChatResponse> FromJson(const nlohmann::json& j);
};

}  // namespace pipette::protocol
