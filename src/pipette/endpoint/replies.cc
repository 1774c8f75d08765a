#include "pipette/endpoint/replies.h"

#include <fmt/format.h>

#include <algorithm>

namespace pipette::endpoint {

using nlohmann::json;

std::vector<int64_t> TokenArrivals(const StreamRecord& r) {
  std::vector<std::pair<int64_t, int>> chunks;
  for (size_t i = 0; i < r.content_ns.size(); ++i) {
    chunks.emplace_back(r.content_ns[i], i < r.content_tokens.size() ? r.content_tokens[i] : -1);
  }
  for (size_t i = 0; i < r.reasoning_ns.size(); ++i) {
    chunks.emplace_back(r.reasoning_ns[i],
                        i < r.reasoning_tokens.size() ? r.reasoning_tokens[i] : -1);
  }
  std::stable_sort(chunks.begin(), chunks.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<int64_t> out;
  for (const auto& [t, n] : chunks) out.insert(out.end(), static_cast<size_t>(n < 0 ? 1 : n), t);
  return out;
}

namespace {

bool ServerCountsChunks(const StreamRecord& r) {
  auto known = [](const std::vector<int>& v) {
    return std::all_of(v.begin(), v.end(), [](int n) { return n >= 0; });
  };
  return !r.content_tokens.empty() && known(r.content_tokens) && known(r.reasoning_tokens);
}

}  // namespace

json StreamFacts(const Streamed& s, int64_t asked_tokens,
                 std::optional<int64_t> expected_prompt_tokens, bool asked_is_limit) {
  const StreamRecord& r = s.record;
  const std::vector<int64_t> arrivals = TokenArrivals(r);
  json f = {{"t_sent_ns", s.t_sent_ns},
            {"t_status_ns", s.t_status_ns},
            {"t_end_ns", s.t_end_ns},
            {"token_ns", arrivals},
            {"n_chunks", r.content_ns.size() + r.reasoning_ns.size()},
            {"finish_reason", r.finish_reason}};
  if (!arrivals.empty()) f["t_first_ns"] = arrivals.front();
  // Where the count of generated tokens comes from: the server's usage, else the chunks (each
  // holding the tokens the server says it holds, else one).
  const int64_t streamed = static_cast<int64_t>(arrivals.size());
  f["tokens"] = {{"asked", asked_tokens},
                 {"streamed", streamed},
                 {"streamed_counted_by", ServerCountsChunks(r) ? "server_per_chunk" : "chunks"}};
  // The count of generated tokens: the server's usage; without it, the text counted with the
  // model's tokenizer; without one, the chunks.
  int64_t generated = streamed;
  const char* generated_from = "chunks";
  if (r.usage_completion_tokens) {
    f["tokens"]["usage"] = *r.usage_completion_tokens;
    generated = *r.usage_completion_tokens;
    generated_from = "usage";
  } else if (r.tokenizer_completion_tokens) {
    f["tokens"]["tokenizer"] = *r.tokenizer_completion_tokens;
    generated = *r.tokenizer_completion_tokens;
    generated_from = "tokenizer";
  }
  f["tokens"]["generated"] = generated;
  f["tokens"]["generated_from"] = generated_from;
  if (!r.reasoning_ns.empty() || !r.reasoning.empty()) {
    int64_t reasoning = 0;
    for (int n : r.reasoning_tokens) reasoning += n < 0 ? 1 : n;
    f["tokens"]["reasoning"] = reasoning;
    f["tokens"]["answer"] = streamed - reasoning;
  }
  std::vector<std::string> mismatch;
  // A generation that stopped at end-of-sequence: the server counts that token, which has no
  // text and is not streamed.
  const bool eos_counted = r.finish_reason == "stop" && r.usage_completion_tokens &&
                           *r.usage_completion_tokens == streamed + 1;
  if (r.usage_completion_tokens && *r.usage_completion_tokens != streamed && !eos_counted) {
    mismatch.push_back(
        fmt::format("usage says {} generated, {} streamed", *r.usage_completion_tokens, streamed));
  }
  // Arrivals are chunks when the server does not count per chunk: a text of more tokens than
  // chunks streamed makes the per-token figures wrong, and says so.
  if (!r.usage_completion_tokens && r.tokenizer_completion_tokens &&
      *r.tokenizer_completion_tokens != streamed) {
    mismatch.push_back(fmt::format("the tokenizer counts {} in the text, {} streamed",
                                   *r.tokenizer_completion_tokens, streamed));
  }
  if (asked_is_limit ? generated > asked_tokens : generated != asked_tokens) {
    mismatch.push_back(fmt::format("{} asked, {} generated", asked_tokens, generated));
  }
  if (r.usage_prompt_tokens) f["tokens"]["prompt_usage"] = *r.usage_prompt_tokens;
  if (expected_prompt_tokens) {
    f["tokens"]["prompt_expected"] = *expected_prompt_tokens;
    if (r.usage_prompt_tokens && *r.usage_prompt_tokens != *expected_prompt_tokens) {
      mismatch.push_back(fmt::format("prompt of {} tokens expected, usage says {}",
                                     *expected_prompt_tokens, *r.usage_prompt_tokens));
    }
  }
  if (!mismatch.empty()) {
    std::string joined;
    for (const auto& m : mismatch) joined += (joined.empty() ? "" : "; ") + m;
    f["tokens"]["mismatch"] = joined;
  }
  json server = json::object();
  if (r.server_prompt_n) server["prompt_n"] = *r.server_prompt_n;
  if (r.server_prompt_ms) server["prompt_ms"] = *r.server_prompt_ms;
  if (r.server_predicted_n) server["predicted_n"] = *r.server_predicted_n;
  if (r.server_predicted_ms) server["predicted_ms"] = *r.server_predicted_ms;
  if (!server.empty()) f["server"] = server;
  return f;
}

json FailedStream(const StreamError& e) { return {{"error", e.message}, {"kind", e.KindName()}}; }

namespace {

// The streams' facts; the first error that ends the cell; the index of the first stream that
// `usable` accepts.
struct Gathered {
  json facts = json::array();
  std::optional<StreamError> ends_cell;
  std::optional<StreamError> first_failure;
  std::optional<size_t> primary;
};

template <class Usable>
Gathered Gather(const std::vector<Result<Streamed, StreamError>>& streams, int64_t asked,
                std::optional<int64_t> expected_prompt, Usable usable) {
  Gathered g;
  for (size_t i = 0; i < streams.size(); ++i) {
    const auto& s = streams[i];
    if (!s) {
      if (s.error().EndsCell() && !g.ends_cell) g.ends_cell = s.error();
      if (!g.first_failure) g.first_failure = s.error();
      g.facts.push_back(FailedStream(s.error()));
      continue;
    }
    json f = StreamFacts(*s, asked, expected_prompt);
    if (!usable(f)) {
      f["error"] = fmt::format("the server streamed {} token(s) of the {} asked",
                               f["tokens"]["streamed"].get<int64_t>(), asked);
      f["kind"] = "short";
      if (!g.first_failure) {
        StreamError e;
        e.kind = StreamError::Kind::kCut;
        e.message = f["error"].get<std::string>();
        g.first_failure = e;
      }
    } else if (!g.primary) {
      g.primary = i;
    }
    g.facts.push_back(std::move(f));
  }
  return g;
}

Replied Finish(Gathered g, json reply) {
  Replied out;
  if (g.ends_cell) {
    out.ends_cell = g.ends_cell;
    return out;
  }
  if (!g.primary) {
    out.reply = {{"request_failed",
                  {{"kind", g.first_failure ? g.first_failure->KindName() : "short"},
                   {"message", g.first_failure ? g.first_failure->message : "no stream"}}},
                 {"streams", g.facts}};
    return out;
  }
  reply["streams"] = g.facts;
  out.reply = std::move(reply);
  return out;
}

}  // namespace

Replied TgReply(int64_t n_gen, const std::vector<Result<Streamed, StreamError>>& streams) {
  // A stream that stopped short of the tokens asked (at end-of-sequence, on a server that does
  // not suppress it) measured another test than tg<n_gen>: not a success.
  const size_t asked = static_cast<size_t>(n_gen + 1);
  Gathered g = Gather(streams, n_gen + 1, std::nullopt,
                      [asked](const json& f) { return f["token_ns"].size() >= asked; });
  json reply;
  if (g.primary && !g.ends_cell) {
    const json& f = g.facts[*g.primary];
    const std::vector<int64_t> arrivals = f["token_ns"].get<std::vector<int64_t>>();
    reply["n_gen"] = static_cast<int64_t>(arrivals.size()) - 1;
    reply["t_start_ns"] = arrivals.front();
    reply["token_end_ns"] = std::vector<int64_t>(arrivals.begin() + 1, arrivals.end());
    reply["tokens"] = json::array();  // an OpenAI stream carries no token ids
    reply["runtime_perf"] = json::object();
    reply["n_gen_asked"] = n_gen;
  }
  return Finish(std::move(g), std::move(reply));
}

Replied TtftReply(const std::vector<Result<Streamed, StreamError>>& streams,
                  std::optional<int64_t> expected_prompt_tokens) {
  Gathered g = Gather(streams, 1, expected_prompt_tokens,
                      [](const json& f) { return !f["token_ns"].empty(); });
  json reply;
  if (g.primary && !g.ends_cell) {
    const json& f = g.facts[*g.primary];
    const json& tokens = f["tokens"];
    reply["n_prompt_tokens"] =
        tokens.value("prompt_usage", tokens.value("prompt_expected", int64_t{1}));
    reply["t_start_ns"] = f["t_sent_ns"];
    reply["t_tokenized_ns"] = f["t_sent_ns"];  // the server tokenizes: inside the wait
    reply["t_first_token_ns"] = f["t_first_ns"];
    reply["token"] = -1;  // an OpenAI stream carries no token ids
    reply["runtime_perf"] = json::object();
  }
  return Finish(std::move(g), std::move(reply));
}

}  // namespace pipette::endpoint
