#include "pipette/endpoint/openai_stream.h"

#include <fmt/format.h>

#include <cmath>

#include "pipette/http/text.h"
#include "pipette/util/json_parse.h"

namespace pipette::endpoint {

using nlohmann::json;

const std::vector<std::string>& PipetteBodyKeys() {
  static const std::vector<std::string> keys = {"model",       "messages",     "prompt",
                                                "max_tokens",  "stream",       "stream_options",
                                                "temperature", "cache_prompt", "timings_per_token"};
  return keys;
}

Result<std::string> BuildBody(const GenerationRequest& request) {
  json body = json::object();
  if (!request.model.empty()) body["model"] = request.model;
  if (request.api == Api::kChat) {
    body["messages"] = request.prompt;
  } else {
    body["prompt"] = request.prompt;
  }
  body["max_tokens"] = request.max_tokens;
  body["stream"] = true;
  body["stream_options"] = {{"include_usage", true}};
  body["temperature"] = 0;
  if (request.flavor == Flavor::kLlamaServer) {
    body["ignore_eos"] = request.suppress_eos;
    body["cache_prompt"] = false;  // every request processes its whole prompt
    // Every chunk carries the server's counters: how many tokens it holds (a chunk can hold two
    // when a token ends mid-character), and the server's own prompt and generation times.
    body["timings_per_token"] = true;
  }
  if (!request.extra.is_object()) return InputError("body: must be a mapping of keys to values");
  // `ignore_eos: true` in the experiment's body says another server honours it too: sent as
  // llama-server gets it, true for a fixed-length generation only.
  const bool declared_ignore_eos =
      request.extra.contains("ignore_eos") && request.extra["ignore_eos"] == true;
  if (declared_ignore_eos) body["ignore_eos"] = request.suppress_eos;
  for (const auto& [key, value] : request.extra.items()) {
    if (key == "ignore_eos" && declared_ignore_eos) continue;
    if (body.contains(key)) {
      return InputError(fmt::format(
          "body: key '{}' is set by Pipette (it decides what is measured) and cannot be replaced",
          key));
    }
    body[key] = value;
  }
  return body.dump();
}

int64_t TokenCountBound(int64_t asked) {
  // Without a request's size, a bound no generation reaches (and an allocation it can afford).
  return asked > 0 ? 2 * asked + 16 : int64_t{1} << 20;
}

namespace {

// `j[key]` as a count: nullopt when absent or null; an error naming `what` when it is not a
// non-negative integer of at most `bound` (a string, 1e300, -1, a fraction).
Result<std::optional<int64_t>> CountAt(const json& j, const char* key, int64_t bound,
                                       std::string_view what) {
  if (!j.is_object()) return std::optional<int64_t>();
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::optional<int64_t>();
  if (it->is_number_unsigned() && it->get<uint64_t>() <= static_cast<uint64_t>(bound)) {
    return std::optional<int64_t>(static_cast<int64_t>(it->get<uint64_t>()));
  }
  if (it->is_number_integer() && it->get<int64_t>() >= 0 && it->get<int64_t>() <= bound) {
    return std::optional<int64_t>(it->get<int64_t>());
  }
  return RuntimeError(fmt::format("{}.{} is {}: not a count of 0 to {}", what, key,
                                  http::ServerText(it->dump(), "", 40), bound));
}

// `j[key]` as milliseconds: nullopt when absent or null; an error when it is not a number of 0 or
// more.
Result<std::optional<double>> MsAt(const json& j, const char* key, std::string_view what) {
  if (!j.is_object()) return std::optional<double>();
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::optional<double>();
  if (it->is_number() && std::isfinite(it->get<double>()) && it->get<double>() >= 0) {
    return std::optional<double>(it->get<double>());
  }
  return RuntimeError(fmt::format("{}.{} is {}: not a time in milliseconds", what, key,
                                  http::ServerText(it->dump(), "", 40)));
}

std::string StringAt(const json& j, const char* key) {
  if (j.is_object() && j.contains(key) && j[key].is_string()) return j[key].get<std::string>();
  return {};
}

}  // namespace

Result<void> StreamReader::Add(const http::SseEvent& event) {
  if (event.data == "[DONE]") {
    record_.done = true;
    return {};
  }
  ++record_.events;
  const std::string what = fmt::format("the stream's event {}", record_.events);
  auto parsed = ParseJsonBounded(event.data, what);
  if (!parsed || !parsed->is_object()) {
    return RuntimeError(fmt::format("{} is not a JSON object: '{}'", what,
                                    http::ServerText(event.data, secret_, 200)));
  }
  const json& j = *parsed;
  if (j.contains("error")) {
    const json& e = j["error"];
    std::string message = e.is_object() ? StringAt(e, "message") : e.dump();
    return RuntimeError(fmt::format("the server reported an error mid-stream: {}",
                                    http::ServerText(message, secret_)));
  }
  if (j.contains("usage") && j["usage"].is_object()) {
    const std::string in = what + ": usage";
    auto prompt = CountAt(j["usage"], "prompt_tokens", kMaxPromptTokens, in);
    if (!prompt) return prompt.error();
    auto completion = CountAt(j["usage"], "completion_tokens", bound_, in);
    if (!completion) return completion.error();
    if (*prompt) record_.usage_prompt_tokens = *prompt;
    if (*completion) record_.usage_completion_tokens = *completion;
  }
  // Tokens this chunk holds, where the server says: the growth of its cumulative predicted_n.
  int tokens = -1;
  if (j.contains("timings") && j["timings"].is_object()) {
    const json& t = j["timings"];
    const std::string in = what + ": timings";
    auto prompt_n = CountAt(t, "prompt_n", kMaxPromptTokens, in);
    if (!prompt_n) return prompt_n.error();
    auto predicted_n = CountAt(t, "predicted_n", bound_, in);
    if (!predicted_n) return predicted_n.error();
    auto prompt_ms = MsAt(t, "prompt_ms", in);
    if (!prompt_ms) return prompt_ms.error();
    auto predicted_ms = MsAt(t, "predicted_ms", in);
    if (!predicted_ms) return predicted_ms.error();
    if (*prompt_n) record_.server_prompt_n = *prompt_n;
    if (*prompt_ms) record_.server_prompt_ms = *prompt_ms;
    if (*predicted_ms) record_.server_predicted_ms = *predicted_ms;
    if (const auto v = *predicted_n) {
      if (*v < predicted_) {
        return RuntimeError(
            fmt::format("{}.predicted_n went back from {} to {}", in, predicted_, *v));
      }
      record_.server_predicted_n = v;
      tokens = static_cast<int>(*v - predicted_);
      predicted_ = *v;
    }
  }
  const bool has_choice = j.contains("choices") && j["choices"].is_array() && !j["choices"].empty();
  const json choice = has_choice ? j["choices"][0] : json::object();
  if (std::string f = StringAt(choice, "finish_reason"); !f.empty()) record_.finish_reason = f;
  std::string content;
  std::string reasoning;
  if (api_ == Api::kChat) {
    const json& delta = choice.contains("delta") ? choice["delta"] : json::object();
    content = StringAt(delta, "content");
    reasoning = StringAt(delta, "reasoning_content");
  } else {
    content = StringAt(choice, "text");
  }
  // Token ids beside the choices, where a server sends them (llama-server's native /completion
  // with return_tokens; its /v1 endpoints do not).
  if (tokens < 0 && j.contains("tokens") && j["tokens"].is_array()) {
    // As many as the event's bytes allow (http::kMaxSseEvent): within an int.
    tokens = static_cast<int>(j["tokens"].size());
  }
  // Tokens the server counted in a chunk without text (the role-only first chunk of a chat, a
  // token held back while a tag or a stop word may be forming) reach the client with the next
  // chunk that has text; those still held at the end, with the final chunk.
  const bool final = !record_.finish_reason.empty() || j.contains("usage");
  if (tokens > 0 && reasoning.empty() && content.empty() && !final) {
    held_ += tokens;
    return {};
  }
  // The final chunk's own count without text is a token never shown (the end-of-sequence token,
  // a stop word): not an arrival.
  if (final && reasoning.empty() && content.empty()) tokens = 0;
  if (tokens >= 0) {
    tokens += held_;
    held_ = 0;
  }
  // Tokens held to the end belong to what was being written: reasoning, after reasoning.
  const bool to_reasoning = !reasoning.empty() || (content.empty() && in_reasoning_);
  if (!reasoning.empty() || (to_reasoning && tokens > 0)) {
    in_reasoning_ = true;
    record_.reasoning += reasoning;
    record_.reasoning_ns.push_back(event.t_ns);
    record_.reasoning_tokens.push_back(tokens);
  } else if (!content.empty() || tokens > 0) {
    in_reasoning_ = false;
    record_.text += content;
    record_.content_ns.push_back(event.t_ns);
    record_.content_tokens.push_back(tokens);
  }
  return {};
}

}  // namespace pipette::endpoint
