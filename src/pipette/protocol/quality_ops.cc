#include "pipette/protocol/quality_ops.h"

#include <type_traits>
#include <utility>

namespace pipette::protocol {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// An optional array of arrays of numbers (T: int64_t or double); nullopt when absent.
template <class T>
std::optional<std::vector<std::vector<T>>> Rows(FieldReader& f, const char* name) {
  if (!f.Has(name)) return std::nullopt;
  const json rows = f.Array(name);
  std::vector<std::vector<T>> out;
  for (const json& row : rows) {
    const json wrapped = {{name, row}};
    FieldReader r(wrapped, "");
    if constexpr (std::is_same_v<T, double>) {
      out.push_back(r.Numbers(name));
    } else {
      out.push_back(r.Ints(name));
    }
    if (!r.ok()) {
      f.Fail(std::string("field '") + name + "' must be an array of arrays of numbers");
      return std::nullopt;
    }
  }
  return out;
}

std::optional<std::vector<double>> OptionalNumbers(FieldReader& f, const char* name) {
  if (!f.Has(name)) return std::nullopt;
  return f.Numbers(name);
}

json MessagesJson(const std::vector<ChatMessage>& messages) {
  json list = json::array();
  for (const ChatMessage& m : messages) list.push_back({{"role", m.role}, {"content", m.content}});
  return list;
}

// `messages`: a non-empty array of {"role", "content"} strings.
void ReadMessages(FieldReader& f, std::vector<ChatMessage>& out) {
  const json messages = f.Array("messages");
  if (f.ok() && messages.empty()) {
    f.Fail("field 'messages' must be a non-empty array of {\"role\":..,\"content\":..} objects");
  }
  for (size_t i = 0; f.ok() && i < messages.size(); ++i) {
    FieldReader m = f.Nested(messages[i], "messages[" + std::to_string(i) + "]");
    ChatMessage message{m.String("role"), m.String("content")};
    f.Take(m);
    out.push_back(std::move(message));
  }
}

void CheckTemplateOptions(FieldReader& f, const json& options) {
  for (const auto& [key, value] : options.items()) {
    if (f.ok() && (value.is_object() || value.is_array())) {
      f.Fail("template_options." + key + " must be a JSON scalar (string, number, boolean, null)");
    }
  }
}

}  // namespace

json ScoreRequest::ToJson() const {
  json j = {{"op", op::kScore}, {"tokens", tokens}, {"from", from}};
  if (n_batch) j["n_batch"] = *n_batch;
  if (top_k > 0) j["top_k"] = top_k;
  if (ids) j["ids"] = *ids;
  if (logits) j["logits"] = true;
  return j;
}

Result<ScoreRequest> ScoreRequest::FromJson(const json& j) {
  return ReadRequest<ScoreRequest>(j, op::kScore, [](FieldReader& f, ScoreRequest& r) {
    r.tokens = f.Tokens("tokens");
    r.from = f.Int("from", 0, kInt32Max, 0);
    r.n_batch = f.OptionalInt("n_batch", 1, kInt32Max);
    r.top_k = f.Int("top_k", 0, 1000, 0);
    r.logits = f.Bool("logits", false);
    if (!f.ok()) return;
    if (r.logits && (r.top_k > 0 || f.Has("ids"))) {
      f.Fail("'logits' sends every logit: it does not combine with 'top_k' or 'ids'");
    }
    const int64_t n = static_cast<int64_t>(r.tokens.size());
    if (f.ok() && n < 2) f.Fail("'tokens' needs at least 2 tokens: a context and a next token");
    if (f.ok() && r.from > n - 2) {
      f.Fail("'from' " + std::to_string(r.from) + " leaves no position to score in " +
             std::to_string(n) + " tokens");
    }
    if (f.ok() && f.Has("ids")) {
      const json rows = f.Array("ids");
      if (f.ok() && static_cast<int64_t>(rows.size()) != r.n_scored()) {
        f.Fail("'ids' must be an array with one list of token ids per scored position (" +
               std::to_string(r.n_scored()) + ")");
      }
      std::vector<TokenIds> ids;
      for (size_t i = 0; f.ok() && i < rows.size(); ++i) {
        const json wrapped = {{"ids", rows[i]}};  // the reader keeps a reference: keep it alive
        FieldReader row(wrapped, RequestName(op::kScore));
        ids.push_back(row.Tokens("ids"));
        f.Take(row);
      }
      r.ids = std::move(ids);
    }
  });
}

ordered_json ScoreResponse::ToJson() const {
  ordered_json out;
  out["n_tokens"] = n_tokens;
  out["from"] = from;
  out["t_start_ns"] = t_start_ns;
  out["t_end_ns"] = t_end_ns;
  out["logprob"] = logprob;
  out["argmax"] = argmax;
  out["logsumexp"] = logsumexp;
  if (top_ids) out["top_ids"] = *top_ids;
  if (top_logprobs) out["top_logprobs"] = *top_logprobs;
  if (top_tail_logprob) out["top_tail_logprob"] = *top_tail_logprob;
  if (ids_logprob) out["ids_logprob"] = *ids_logprob;
  if (ids_tail_logprob) out["ids_tail_logprob"] = *ids_tail_logprob;
  return out;
}

Result<ScoreResponse> ScoreResponse::FromJson(const json& j) {
  return ReadResponse<ScoreResponse>(j, op::kScore, [](FieldReader& f, ScoreResponse& r) {
    r.n_tokens = f.Int("n_tokens", 2, kInt64Max);
    r.from = f.Int("from", 0, kInt64Max);
    ReadTimeSpan(f, &r.t_start_ns, &r.t_end_ns);
    r.logprob = f.Numbers("logprob");
    r.argmax = f.Ints("argmax");
    r.logsumexp = f.Numbers("logsumexp");
    r.top_ids = Rows<int64_t>(f, "top_ids");
    r.top_logprobs = Rows<double>(f, "top_logprobs");
    r.top_tail_logprob = OptionalNumbers(f, "top_tail_logprob");
    r.ids_logprob = Rows<double>(f, "ids_logprob");
    r.ids_tail_logprob = OptionalNumbers(f, "ids_tail_logprob");
    if (f.ok()) {
      const size_t n = static_cast<size_t>(r.n_tokens - 1 - r.from);
      const bool aligned = r.logprob.size() == n && r.argmax.size() == n &&
                           r.logsumexp.size() == n && (!r.top_ids || r.top_ids->size() == n) &&
                           (!r.top_logprobs || r.top_logprobs->size() == n) &&
                           (!r.top_tail_logprob || r.top_tail_logprob->size() == n) &&
                           (!r.ids_logprob || r.ids_logprob->size() == n) &&
                           (!r.ids_tail_logprob || r.ids_tail_logprob->size() == n);
      if (!aligned) {
        f.Fail("the per-position arrays must have one entry per scored position (" +
               std::to_string(n) + ")");
      }
    }
  });
}

ordered_json ScoreFramesResponse::ToJson() const {
  ordered_json out;
  out["n_tokens"] = n_tokens;
  out["from"] = from;
  out["frames"] = frames;
  out["n_vocab"] = n_vocab;
  out["t_start_ns"] = t_start_ns;
  return out;
}

Result<ScoreFramesResponse> ScoreFramesResponse::FromJson(const json& j) {
  return ReadResponse<ScoreFramesResponse>(
      j, op::kScore, [](FieldReader& f, ScoreFramesResponse& r) {
        r.n_tokens = f.Int("n_tokens", 2, kInt64Max);
        r.from = f.Int("from", 0, kInt64Max);
        r.frames = f.Int("frames", 0, kInt64Max);
        r.n_vocab = f.Int("n_vocab", 1, kInt32Max);
        r.t_start_ns = f.Int("t_start_ns", kInt64Min, kInt64Max);
        if (f.ok() && r.frames != r.n_tokens - 1 - r.from) {
          f.Fail("'frames' must be the number of scored positions (" +
                 std::to_string(r.n_tokens - 1 - r.from) + ")");
        }
      });
}

json ChatRequest::ToJson() const {
  json j = {{"op", op::kChat}, {"max_tokens", max_tokens}};
  if (prompt_tokens) {
    j["prompt_tokens"] = *prompt_tokens;
  } else if (prompt) {
    j["prompt"] = *prompt;
  } else {
    j["messages"] = MessagesJson(messages);
  }
  if (!template_options.empty()) j["template_options"] = template_options;
  if (n_batch) j["n_batch"] = *n_batch;
  if (!stop.empty()) j["stop"] = stop;
  return j;
}

Result<ChatRequest> ChatRequest::FromJson(const json& j) {
  return ReadRequest<ChatRequest>(j, op::kChat, [](FieldReader& f, ChatRequest& r) {
    const bool has_messages = f.Has("messages");
    const bool has_prompt = f.Has("prompt");
    const bool has_prompt_tokens = f.Has("prompt_tokens");
    if (has_prompt_tokens) r.prompt_tokens = f.Tokens("prompt_tokens");
    if (has_prompt) r.prompt = f.String("prompt");
    r.max_tokens = f.Int("max_tokens", 1, kInt32Max);
    r.n_batch = f.OptionalInt("n_batch", 1, kInt32Max);
    if (f.Has("template_options")) r.template_options = f.Object("template_options");
    if (f.Has("stop")) r.stop = f.Strings("stop");
    if (!f.ok()) return;
    if (r.stop.size() > kMaxStops) {
      f.Fail("field 'stop' holds " + std::to_string(r.stop.size()) + " sequences; at most " +
             std::to_string(kMaxStops));
      return;
    }
    for (const std::string& s : r.stop) {
      if (s.empty() || s.size() > kMaxStopBytes) {
        f.Fail("field 'stop' holds a sequence of " + std::to_string(s.size()) +
               " bytes; each is 1 to " + std::to_string(kMaxStopBytes));
        return;
      }
    }
    if (int{has_messages} + int{has_prompt} + int{has_prompt_tokens} != 1) {
      f.Fail(
          "send exactly one of 'messages' (templated chat), 'prompt' (a rendered prompt) and "
          "'prompt_tokens'");
    } else if (has_messages) {
      ReadMessages(f, r.messages);
      CheckTemplateOptions(f, r.template_options);
    } else if (f.Has("template_options")) {
      f.Fail("'template_options' go with 'messages'; '" +
             std::string(has_prompt ? "prompt" : "prompt_tokens") + "' is not templated");
    } else if (has_prompt ? r.prompt->empty() : r.prompt_tokens->empty()) {
      f.Fail(has_prompt ? "'prompt' is empty: nothing to continue"
                        : "'prompt_tokens' is empty: nothing to continue");
    }
  });
}

json RenderChatRequest::ToJson() const {
  json j = {{"op", op::kRenderChat},
            {"template", template_text},
            {"bos_text", bos_text},
            {"eos_text", eos_text},
            {"add_bos", add_bos},
            {"add_eos", add_eos},
            {"messages", MessagesJson(messages)}};
  if (template_tool_use) j["template_tool_use"] = *template_tool_use;
  if (!template_options.empty()) j["template_options"] = template_options;
  return j;
}

Result<RenderChatRequest> RenderChatRequest::FromJson(const json& j) {
  return ReadRequest<RenderChatRequest>(
      j, op::kRenderChat, [](FieldReader& f, RenderChatRequest& r) {
        r.template_text = f.String("template");
        r.template_tool_use = f.OptionalString("template_tool_use");
        r.bos_text = f.String("bos_text");
        r.eos_text = f.String("eos_text");
        r.add_bos = f.Bool("add_bos", false);
        r.add_eos = f.Bool("add_eos", false);
        if (f.Has("template_options")) r.template_options = f.Object("template_options");
        if (!f.ok()) return;
        ReadMessages(f, r.messages);
        CheckTemplateOptions(f, r.template_options);
      });
}

ordered_json RenderChatResponse::ToJson() const {
  ordered_json out;
  out["template"] = template_text;
  out["template_origin"] = template_origin;
  out["template_options"] = template_options;
  out["enable_thinking"] = enable_thinking;
  out["prompt"] = prompt;
  return out;
}

Result<RenderChatResponse> RenderChatResponse::FromJson(const json& j) {
  return ReadResponse<RenderChatResponse>(j, op::kRenderChat,
                                          [](FieldReader& f, RenderChatResponse& r) {
                                            r.template_text = f.String("template");
                                            r.template_origin = f.String("template_origin");
                                            r.template_options = f.Object("template_options");
                                            r.enable_thinking = f.Bool("enable_thinking");
                                            r.prompt = f.String("prompt");
                                          });
}

ordered_json ChatResponse::ToJson() const {
  ordered_json out;
  out["template"] = template_text ? ordered_json(*template_text) : ordered_json(nullptr);
  if (template_origin) out["template_origin"] = *template_origin;
  if (template_options) out["template_options"] = *template_options;
  if (enable_thinking) out["enable_thinking"] = *enable_thinking;
  out["prompt"] = prompt;
  out["n_prompt_tokens"] = n_prompt_tokens;
  out["tokens"] = tokens;
  out["text"] = text;
  out["stop"] = stop;
  out["t_start_ns"] = t_start_ns;
  out["t_first_token_ns"] = t_first_token_ns;
  out["t_end_ns"] = t_end_ns;
  return out;
}

Result<ChatResponse> ChatResponse::FromJson(const json& j) {
  return ReadResponse<ChatResponse>(j, op::kChat, [](FieldReader& f, ChatResponse& r) {
    r.template_text = f.OptionalString("template");
    r.template_origin = f.OptionalString("template_origin");
    if (f.Has("template_options")) r.template_options = f.Object("template_options");
    if (f.Has("enable_thinking")) r.enable_thinking = f.Bool("enable_thinking");
    r.prompt = f.String("prompt");
    r.n_prompt_tokens = f.Int("n_prompt_tokens", 0, kInt64Max);
    r.tokens = f.Tokens("tokens");
    r.text = f.String("text");
    r.stop = f.String("stop");
    r.t_start_ns = f.Int("t_start_ns", kInt64Min, kInt64Max);
    r.t_first_token_ns = f.Int("t_first_token_ns", r.t_start_ns, kInt64Max);
    r.t_end_ns = f.Int("t_end_ns", r.t_first_token_ns, kInt64Max);
    // "failed": an endpoint's request that stalled, was cut or malformed (docs/protocol.md).
    if (f.ok() && r.stop != "eog" && r.stop != "max_tokens" && r.stop != "stop" &&
        r.stop != "failed") {
      f.Fail("field 'stop' must be \"eog\", \"max_tokens\", \"stop\" or \"failed\", got '" +
             r.stop + "'");
    }
  });
}

}  // namespace pipette::protocol
