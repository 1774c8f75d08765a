// The llama.cpp worker's speed ops (docs/protocol.md "pp", "tg", "e2e", "ttft"): LlamaSession's
// timed decoding; the session's lifecycle and the other ops are llama_session.cc's and
// llama_quality_ops.cc's.
#include <limits>
#include <string>
#include <vector>

#include "common/monotonic_clock.h"
#include "llama_session.h"
#include "pipette/protocol/speed_ops.h"

namespace pipette::llama_worker {
namespace {

using nlohmann::json;
using worker_common::Fail;
using worker_common::NowNs;

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

}  // namespace

Reply LlamaSession::PromptProcessing(const json& request) {
  auto req = protocol::PpRequest::FromJson(request);
  if (!req) return req.error();
  if (Status ready = CheckReady(/*need_context=*/true); !ready) return ready.error();
  const std::vector<llama_token>& tokens = req->tokens;
  const std::vector<llama_token>& prefix = req->prefix;
  if (Status ids = CheckTokens(tokens, "tokens"); !ids) return ids.error();
  if (Status ids = CheckTokens(prefix, "prefix"); !ids) return ids.error();
  const uint32_t n_ctx = llama_n_ctx(context_.get());
  if (prefix.size() + tokens.size() > n_ctx) {
    return Fail((prefix.empty() ? "" : std::to_string(prefix.size()) + " prefix tokens and ") +
                std::to_string(tokens.size()) + " tokens do not fit the context (n_ctx " +
                std::to_string(n_ctx) + ")");
  }
  auto n_batch = ResolveBatch(req->n_batch);
  if (!n_batch) return n_batch.error();

  ClearForRequest();
  if (!prefix.empty()) {
    if (Status decoded = DecodeInBatches(prefix, 0, *n_batch, nullptr); !decoded) {
      return Fail("decoding the prefix: " + decoded.error().message);
    }
    llama_perf_context_reset(context_.get());  // runtime_perf: the timed tokens only
  }
  protocol::PpResponse out;
  out.t_start_ns = NowNs();
  if (Status decoded =
          DecodeInBatches(tokens, static_cast<int32_t>(prefix.size()), *n_batch, &out.batch_end_ns);
      !decoded) {
    return decoded.error();
  }
  const float* logits = llama_get_logits_ith(context_.get(), -1);
  if (logits == nullptr) return Fail("llama.cpp returned no logits for the last token");
  [[maybe_unused]] volatile float first_logit = logits[0];
  out.t_end_ns = NowNs();
  out.n_tokens = static_cast<int64_t>(tokens.size());
  out.runtime_perf = RuntimePerf();
  return out.ToJson();
}

Reply LlamaSession::Generate(const json& request) {
  auto req = protocol::TgRequest::FromJson(request);
  if (!req) return req.error();
  if (Status ready = CheckReady(/*need_context=*/true); !ready) return ready.error();
  const std::vector<llama_token>& prompt = req->prompt;
  const int64_t n_gen = req->n_gen;
  if (Status ids = CheckTokens(prompt, "prompt"); !ids) return ids.error();
  if (Status ids = CheckTokens({req->first_token}, "first_token"); !ids) return ids.error();
  const uint32_t n_ctx = llama_n_ctx(context_.get());
  if (static_cast<int64_t>(prompt.size()) + n_gen > n_ctx) {
    return Fail("prompt (" + std::to_string(prompt.size()) + " tokens) plus n_gen (" +
                std::to_string(n_gen) + ") do not fit the context (n_ctx " + std::to_string(n_ctx) +
                ")");
  }
  auto n_batch = ResolveBatch(req->n_batch);
  if (!n_batch) return n_batch.error();

  ClearForRequest();
  if (Status decoded = DecodeInBatches(prompt, 0, *n_batch, nullptr); !decoded) {
    return Fail("decoding the prompt: " + decoded.error().message);
  }
  const int32_t pos0 = static_cast<int32_t>(prompt.size());
  protocol::TgResponse out;
  out.token_end_ns.reserve(static_cast<size_t>(n_gen));
  out.tokens.reserve(static_cast<size_t>(n_gen));
  llama_token next = req->first_token;
  out.t_start_ns = NowNs();
  for (int32_t step = 0; step < n_gen; ++step) {
    if (Status st = DecodeOneAndChoose(&next, pos0 + step, step); !st) return st.error();
    out.token_end_ns.push_back(NowNs());
    out.tokens.push_back(next);
  }
  out.n_gen = n_gen;
  out.runtime_perf = RuntimePerf();
  return out.ToJson();
}

Status LlamaSession::DecodeOneAndChoose(llama_token* token, int32_t pos, int64_t step) {
  batch_.n_tokens = 1;
  batch_.token[0] = *token;
  batch_.pos[0] = pos;
  batch_.n_seq_id[0] = 1;
  batch_.seq_id[0][0] = 0;
  batch_.logits[0] = 1;
  const int32_t rc = llama_decode(context_.get(), batch_);
  if (rc != 0) {
    return Fail("llama_decode returned " + std::to_string(rc) + " at step " + std::to_string(step));
  }
  *token = ArgmaxOfLast();
  if (*token < 0) return Fail("llama.cpp returned no logits at step " + std::to_string(step));
  return {};
}

Reply LlamaSession::EndToEnd(const json& request) {
  auto req = protocol::E2eRequest::FromJson(request);
  if (!req) return req.error();
  if (Status ready = CheckReady(/*need_context=*/true); !ready) return ready.error();
  const std::vector<llama_token>& prompt = req->prompt;
  const int64_t n_gen = req->n_gen;
  if (Status ids = CheckTokens(prompt, "prompt"); !ids) return ids.error();
  const uint32_t n_ctx = llama_n_ctx(context_.get());
  // The last generated token is chosen, not decoded: P + N - 1 positions.
  if (static_cast<int64_t>(prompt.size()) + n_gen - 1 > n_ctx) {
    return Fail("prompt (" + std::to_string(prompt.size()) + " tokens) plus n_gen (" +
                std::to_string(n_gen) + ") do not fit the context (n_ctx " + std::to_string(n_ctx) +
                ")");
  }
  auto n_batch = ResolveBatch(req->n_batch);
  if (!n_batch) return n_batch.error();

  ClearForRequest();
  protocol::E2eResponse out;
  out.token_end_ns.reserve(static_cast<size_t>(n_gen));
  out.tokens.reserve(static_cast<size_t>(n_gen));
  out.t_start_ns = NowNs();
  if (Status decoded = DecodeInBatches(prompt, 0, *n_batch, nullptr); !decoded) {
    return Fail("decoding the prompt: " + decoded.error().message);
  }
  llama_token next = ArgmaxOfLast();
  if (next < 0) return Fail("llama.cpp returned no logits for the prompt's last token");
  out.token_end_ns.push_back(NowNs());
  out.tokens.push_back(next);
  const int32_t pos0 = static_cast<int32_t>(prompt.size());
  for (int32_t step = 1; step < n_gen; ++step) {
    if (Status st = DecodeOneAndChoose(&next, pos0 + step - 1, step); !st) return st.error();
    out.token_end_ns.push_back(NowNs());
    out.tokens.push_back(next);
  }
  out.n_prompt = static_cast<int64_t>(prompt.size());
  out.n_gen = n_gen;
  out.runtime_perf = RuntimePerf();
  return out.ToJson();
}

Reply LlamaSession::TimeToFirstToken(const json& request) {
  auto req = protocol::TtftRequest::FromJson(request);
  if (!req) return req.error();
  if (Status ready = CheckReady(/*need_context=*/true); !ready) return ready.error();
  if (req->text.size() > static_cast<size_t>(kInt32Max) / 2) return Fail("text is too long");
  auto n_batch = ResolveBatch(req->n_batch);
  if (!n_batch) return n_batch.error();

  ClearForRequest();
  protocol::TtftResponse out;
  out.t_start_ns = NowNs();
  const std::vector<llama_token> tokens =
      TokenizeText(req->text, req->add_special, req->parse_special);
  out.t_tokenized_ns = NowNs();
  if (tokens.empty()) return Fail("the text tokenizes to no tokens");
  const uint32_t n_ctx = llama_n_ctx(context_.get());
  if (tokens.size() > n_ctx) {
    return Fail("the text tokenizes to " + std::to_string(tokens.size()) +
                " tokens, which do not fit the context (n_ctx " + std::to_string(n_ctx) + ")");
  }
  if (Status decoded = DecodeInBatches(tokens, 0, *n_batch, nullptr); !decoded) {
    return decoded.error();
  }
  const llama_token token = ArgmaxOfLast();
  out.t_first_token_ns = NowNs();
  if (token < 0) return Fail("llama.cpp returned no logits for the last token");
  out.n_prompt_tokens = static_cast<int64_t>(tokens.size());
  out.token = token;
  out.runtime_perf = RuntimePerf();
  return out.ToJson();
}

}  // namespace pipette::llama_worker
