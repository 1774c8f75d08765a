#include "pipette/endpoint/openai_stream.h"

#include <fmt/format.h>

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

namespace {

std::optional<int64_t> IntAt(const json& j, const char* key) {
  if (j.is_object() && j.contains(key) && j[key].is_number()) return j[key].get<int64_t>();
  return std::nullopt;
}
std::optional<double> NumberAt(const json& j, const char* key) {
  if (j.is_object() && j.contains(key) && j[key].is_number()) return j[key].get<double>();
  return std::nullopt;
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
  json j = json::parse(event.data, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return RuntimeError(fmt::format("the stream's event {} is not a JSON object: '{}'",
                                    record_.events, event.data.substr(0, 200)));
  }
  if (j.contains("error")) {
    const json& e = j["error"];
    std::string message = e.is_object() ? StringAt(e, "message") : e.dump();
    return RuntimeError(fmt::format("the server reported an error mid-stream: {}", message));
  }
  if (j.contains("usage") && j["usage"].is_object()) {
    if (auto n = IntAt(j["usage"], "prompt_tokens")) record_.usage_prompt_tokens = n;
    if (auto n = IntAt(j["usage"], "completion_tokens")) record_.usage_completion_tokens = n;
  }
  // Tokens this chunk holds, where the server says: the growth of its cumulative predicted_n.
  int tokens = -1;
  if (j.contains("timings") && j["timings"].is_object()) {
    const json& t = j["timings"];
    if (auto v = IntAt(t, "prompt_n")) record_.server_prompt_n = v;
    if (auto v = NumberAt(t, "prompt_ms")) record_.server_prompt_ms = v;
    if (auto v = IntAt(t, "predicted_n")) {
      record_.server_predicted_n = v;
      tokens = static_cast<int>(*v - predicted_);
      predicted_ = *v;
    }
    if (auto v = NumberAt(t, "predicted_ms")) record_.server_predicted_ms = v;
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
