// The OpenAI-compatible streaming API as Pipette speaks it: the body of a streamed completions or
// chat-completions request, and a reader that turns the streamed events into what was measured —
// each chunk's arrival, answer text apart from reasoning text, the server's own usage and timings,
// the finish reason. Pure: no sockets (the HTTP client feeds it SSE events).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/http/sse.h"
#include "pipette/util/result.h"

namespace pipette::endpoint {

enum class Api { kCompletions, kChat };  // /completions, /chat/completions
// Which server is behind the URL: llama-server takes llama.cpp's extra fields (ignore_eos,
// cache_prompt, return_tokens) and returns `timings`; a generic server gets the standard fields.
enum class Flavor { kLlamaServer, kGeneric };

struct GenerationRequest {
  Api api = Api::kCompletions;
  Flavor flavor = Flavor::kLlamaServer;
  std::string model = {};
  // kCompletions: the prompt as token ids (an array) or text; kChat: the messages array.
  nlohmann::json prompt = nlohmann::json::array();
  int max_tokens = 16;
  bool suppress_eos = true;  // generate exactly max_tokens (llama-server's ignore_eos)
  // Keys the experiment adds to every body (recorded with the row); they may not replace the
  // keys Pipette sets itself.
  nlohmann::json extra = nlohmann::json::object();
};

// The JSON body: stream on, usage asked for, greedy (temperature 0), no prompt cache reuse on
// llama-server. An input error when `extra` names a key Pipette sets.
Result<std::string> BuildBody(const GenerationRequest& request);

// The keys BuildBody sets itself, which an experiment's `body:` may not replace.
const std::vector<std::string>& PipetteBodyKeys();

// What one streamed response said, in arrival order.
struct StreamRecord {
  std::vector<int64_t> content_ns;  // arrival of each chunk that carried answer text
  // Tokens per such chunk, where the server says (llama-server's per-chunk `timings`, asked with
  // timings_per_token; a `tokens` array); -1: it does not say.
  std::vector<int> content_tokens;
  std::vector<int64_t> reasoning_ns;  // arrival of each chunk that carried reasoning text
  std::vector<int> reasoning_tokens;  // tokens per such chunk, as content_tokens
  std::string text;                   // the answer text, joined
  std::string reasoning;              // the reasoning text, joined (chat only)
  std::string finish_reason;          // "length", "stop", ...; empty if none came
  std::optional<int64_t> usage_prompt_tokens;
  std::optional<int64_t> usage_completion_tokens;
  // Without usage: the generated text (reasoning and answer) counted with the model's tokenizer,
  // set by the caller that has one (EndpointChannel); a count of re-tokenized text, marked so.
  std::optional<int64_t> tokenizer_completion_tokens;
  // llama-server's `timings` (its own clock): prompt processing and generation.
  std::optional<int64_t> server_prompt_n;
  std::optional<double> server_prompt_ms;
  std::optional<int64_t> server_predicted_n;
  std::optional<double> server_predicted_ms;
  bool done = false;  // "[DONE]" came
  int events = 0;     // data events read
};

// The most generated tokens a server's count may say for a request of `asked` tokens (its
// max_tokens; 0: not known): twice that and 16 more, room for a count that differs (recorded as a
// mismatch); past it the count is no count, and the stream an error. A prompt's count, at most
// kMaxPromptTokens.
int64_t TokenCountBound(int64_t asked);
inline constexpr int64_t kMaxPromptTokens = int64_t{1} << 30;

class StreamReader {
 public:
  // `asked_tokens`: the request's max_tokens, which bounds the server's counts; `secret`: the API
  // key, cut out of any text of the server's an error quotes.
  explicit StreamReader(Api api, int64_t asked_tokens = 0, std::string secret = {})
      : api_(api), bound_(TokenCountBound(asked_tokens)), secret_(std::move(secret)) {}
  // One SSE event. An error when its data is not a JSON object, is the server's error object, or
  // holds a count or a time that is not one (not a number of the type, negative, past its bound,
  // a running count that went back): then the record keeps what came before.
  Result<void> Add(const http::SseEvent& event);
  const StreamRecord& record() const { return record_; }

 private:
  Api api_;
  int64_t bound_;
  std::string secret_;
  StreamRecord record_;
  int64_t predicted_ = 0;      // the last chunk's cumulative predicted_n
  int held_ = 0;               // tokens counted in chunks without text, not yet given to one
  bool in_reasoning_ = false;  // the last chunk with text was reasoning
};

}  // namespace pipette::endpoint
