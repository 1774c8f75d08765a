// The llama.cpp worker's quality ops (docs/protocol.md "score", "chat"): log-probabilities
// (with their logits as frames) and generated replies; the session's lifecycle and the other
// ops are llama_session.cc's and llama_speed_ops.cc's.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "batch_plan.h"
#include "chat_template.h"
#include "common/monotonic_clock.h"
#include "llama_session.h"
#include "log_softmax.h"
#include "pipette/protocol/quality_ops.h"
#include "pipette/util/field_reader.h"

namespace pipette::llama_worker {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;
using worker_common::Fail;
using worker_common::NowNs;

}  // namespace

Reply LlamaSession::Score(const json& request, FrameStream* stream) {
  auto req = protocol::ScoreRequest::FromJson(request);
  if (!req) return req.error();
  if (Status ready = CheckReady(/*need_context=*/true); !ready) return ready.error();
  const bool frames = req->logits;
  if (frames && stream == nullptr) return Fail("this channel cannot carry frames");
  const std::vector<llama_token>& tokens = req->tokens;
  const int64_t n = static_cast<int64_t>(tokens.size());
  const int64_t from = req->from;
  if (Status ids = CheckTokens(tokens, "tokens"); !ids) return ids.error();
  if (n > static_cast<int64_t>(llama_n_ctx(context_.get()))) {
    return Fail(std::to_string(n) + " tokens do not fit the context (n_ctx " +
                std::to_string(llama_n_ctx(context_.get())) + ")");
  }
  // Optional: for each scored position, token ids whose log-probabilities are wanted.
  const std::vector<TokenIds> no_ids;
  const std::vector<TokenIds>& ids = req->ids ? *req->ids : no_ids;
  for (const TokenIds& row : ids) {
    if (Status in_vocab = CheckTokens(row, "ids"); !in_vocab) return in_vocab.error();
  }
  auto n_batch = ResolveBatch(req->n_batch);
  if (!n_batch) return n_batch.error();
  const int32_t n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model_.get()));
  const int64_t top_k = req->top_k;

  protocol::ScoreResponse out;
  if (top_k > 0) {
    out.top_ids.emplace();
    out.top_logprobs.emplace();
    out.top_tail_logprob.emplace();
  }
  if (!ids.empty()) {
    out.ids_logprob.emplace();
    out.ids_tail_logprob.emplace();
  }
  ClearForRequest();
  const int64_t t_start = NowNs();
  if (frames) {
    // The response line announces the frames; the facts follow as binary frames, position by
    // position, as each batch is decoded (the worker never holds more than one batch's logits).
    const protocol::ScoreFramesResponse head{n, from, req->n_scored(), n_vocab, t_start};
    if (!stream->Line(head.ToJson())) return Fail("cannot write to the controller");
  }
  for (const BatchSpan& span : BatchSpans(n, *n_batch)) {
    const int64_t start = span.start;
    const int32_t count = static_cast<int32_t>(span.count);
    batch_.n_tokens = count;
    for (int32_t i = 0; i < count; ++i) {
      const int64_t pos = start + i;
      batch_.token[i] = tokens[pos];
      batch_.pos[i] = static_cast<llama_pos>(pos);
      batch_.n_seq_id[i] = 1;
      batch_.seq_id[i][0] = 0;
      batch_.logits[i] = ScoredPosition(pos, from, n) ? 1 : 0;
    }
    if (const int32_t rc = llama_decode(context_.get(), batch_); rc != 0) {
      return Fail("llama_decode returned " + std::to_string(rc) + " for the batch at " +
                  "position " + std::to_string(start));
    }
    // This batch's outputs are overwritten by the next decode: read them now (frames: send
    // them, flushed before the next batch so the controller can reduce while it decodes).
    for (int32_t i = 0; i < count; ++i) {
      const int64_t pos = start + i;
      if (!ScoredPosition(pos, from, n)) continue;
      const float* logits = llama_get_logits_ith(context_.get(), i);
      if (logits == nullptr) return Fail("llama.cpp returned no logits at " + std::to_string(pos));
      if (frames) {
        for (int32_t v = 0; v < n_vocab; ++v) {
          if (!std::isfinite(logits[v])) {
            return Fail("the logits at position " + std::to_string(pos) +
                        " are not finite (NaN or infinity): the model or runtime is broken");
          }
        }
        if (!stream->Logits(static_cast<int32_t>(pos), NowNs(), logits, n_vocab)) {
          return Fail("cannot write to the controller");
        }
        continue;
      }
      const LogitView view{logits, n_vocab};
      const double log_sum_exp = LogSumExp(view);
      if (!std::isfinite(log_sum_exp)) {
        return Fail("the logits at position " + std::to_string(pos) +
                    " are not finite (NaN or infinity): the model or runtime is broken");
      }
      out.logsumexp.push_back(log_sum_exp);
      out.logprob.push_back(double(logits[tokens[pos + 1]]) - log_sum_exp);
      out.argmax.push_back(Argmax(view));
      if (top_k > 0) {
        std::vector<int64_t> row_ids;
        std::vector<double> row_lp;
        std::vector<int32_t> chosen;
        for (const auto& [id, lp] : TopK(view, static_cast<int32_t>(top_k), log_sum_exp)) {
          row_ids.push_back(id);
          row_lp.push_back(lp);
          chosen.push_back(id);
        }
        out.top_ids->push_back(std::move(row_ids));
        out.top_logprobs->push_back(std::move(row_lp));
        out.top_tail_logprob->push_back(TailLogProb(view, chosen, log_sum_exp));
      }
      if (!ids.empty()) {
        std::vector<double> row;
        const std::vector<llama_token>& wanted = ids[static_cast<size_t>(pos - from)];
        for (llama_token id : wanted) row.push_back(double(logits[id]) - log_sum_exp);
        out.ids_logprob->push_back(std::move(row));
        out.ids_tail_logprob->push_back(TailLogProb(view, wanted, log_sum_exp));
      }
    }
    if (frames && !stream->Flush()) return Fail("cannot write to the controller");
  }
  const int64_t t_end = NowNs();
  if (frames) return ordered_json::object();
  out.n_tokens = n;
  out.from = from;
  out.t_start_ns = t_start;
  out.t_end_ns = t_end;
  return out.ToJson();
}

Reply LlamaSession::Chat(const json& request) {
  auto req = protocol::ChatRequest::FromJson(request);
  if (!req) return req.error();
  if (Status ready = CheckReady(/*need_context=*/true); !ready) return ready.error();
  const int64_t max_tokens = req->max_tokens;
  auto n_batch = ResolveBatch(req->n_batch);
  if (!n_batch) return n_batch.error();

  protocol::ChatResponse out;
  std::vector<llama_token> prompt;
  if (req->prompt) {
    // Rendered by `render_chat` (the same engine), tokenized as a templated prompt is.
    out.prompt = *req->prompt;
    prompt = TokenizeText(out.prompt, /*add_special=*/true, /*parse_special=*/true);
    if (prompt.empty()) return Fail("the prompt tokenizes to no tokens");
  } else if (!req->prompt_tokens) {
    auto templated = TemplatedPrompt(*req);
    if (!templated) return templated.error();
    prompt = std::move(templated->tokens);
    out.prompt = std::move(templated->prompt);
    out.template_text = std::move(templated->template_text);
    out.template_origin = std::move(templated->template_origin);
    out.template_options = std::move(templated->options);
    out.enable_thinking = templated->enable_thinking;
  } else {
    prompt = *req->prompt_tokens;
    if (Status ids = CheckTokens(prompt, "prompt_tokens"); !ids) return ids.error();
    // No formatted text exists: report the prompt's own text, special tokens rendered.
    auto text = DetokenizeTokens(prompt, /*remove_special=*/false, /*unparse_special=*/true);
    if (!text) return Fail("llama_detokenize failed on 'prompt_tokens'");
    out.prompt = std::move(*text);
  }
  const int64_t n_prompt = static_cast<int64_t>(prompt.size());
  const uint32_t n_ctx = llama_n_ctx(context_.get());
  if (n_prompt + max_tokens > n_ctx) {
    return Fail("the prompt (" + std::to_string(n_prompt) + " tokens) plus max_tokens (" +
                std::to_string(max_tokens) + ") = " + std::to_string(n_prompt + max_tokens) +
                " do not fit the context (n_ctx " + std::to_string(n_ctx) + ")");
  }

  const llama_vocab* vocab = llama_model_get_vocab(model_.get());
  ClearForRequest();
  out.t_start_ns = NowNs();
  if (Status decoded = DecodeInBatches(prompt, 0, *n_batch, nullptr); !decoded) {
    return Fail("decoding the prompt: " + decoded.error().message);
  }
  std::vector<llama_token>& tokens = out.tokens;
  tokens.reserve(static_cast<size_t>(max_tokens));
  out.stop = "max_tokens";
  for (int64_t step = 0;; ++step) {
    const llama_token next = ArgmaxOfLast();
    if (step == 0) out.t_first_token_ns = NowNs();
    if (next < 0) return Fail("llama.cpp returned no logits at step " + std::to_string(step));
    if (llama_vocab_is_eog(vocab, next)) {
      out.stop = "eog";
      break;
    }
    tokens.push_back(next);
    if (!req->stop.empty()) {
      // The text of every token so far, as the response gives it: a stop sequence may span
      // tokens, and a character split across tokens is whole only once both are there.
      auto text = DetokenizeTokens(tokens, /*remove_special=*/false, /*unparse_special=*/false);
      if (!text) return Fail("llama_detokenize failed on the generated tokens");
      if (std::any_of(req->stop.begin(), req->stop.end(),
                      [&](const std::string& s) { return text->find(s) != std::string::npos; })) {
        out.stop = "stop";
        break;
      }
    }
    if (static_cast<int64_t>(tokens.size()) == max_tokens) break;
    // Only a token that will be continued is decoded.
    batch_.n_tokens = 1;
    batch_.token[0] = next;
    batch_.pos[0] = static_cast<llama_pos>(n_prompt + step);
    batch_.n_seq_id[0] = 1;
    batch_.seq_id[0][0] = 0;
    batch_.logits[0] = 1;
    if (const int32_t rc = llama_decode(context_.get(), batch_); rc != 0) {
      return Fail("llama_decode returned " + std::to_string(rc) + " at generation step " +
                  std::to_string(step));
    }
  }
  out.t_end_ns = NowNs();
  // The whole list at once, so that characters split across tokens come out whole.
  auto text = DetokenizeTokens(tokens, /*remove_special=*/false, /*unparse_special=*/false);
  if (!text) return Fail("llama_detokenize failed on the generated tokens");
  out.text = std::move(*text);
  out.n_prompt_tokens = n_prompt;
  return out.ToJson();
}

}  // namespace pipette::llama_worker
