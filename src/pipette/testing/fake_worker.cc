#include "pipette/testing/fake_worker.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "pipette/protocol/model_ops.h"
#include "pipette/protocol/quality_ops.h"
#include "pipette/protocol/session_ops.h"
#include "pipette/protocol/speed_ops.h"

namespace pipette::testing {

using nlohmann::json;
using worker::CallError;

std::vector<float> Logits(double scale, int32_t token) {
  std::vector<float> out(static_cast<size_t>(kVocab));
  for (size_t v = 0; v < out.size(); ++v) {
    out[v] = static_cast<float>(scale * std::cos(0.37 * double(v) + 1.3 * double(token)));
  }
  return out;
}

TokenIds FakeTokens(const std::string& text, bool add_bos) {
  TokenIds out;
  if (add_bos) out.push_back(kBos);
  for (unsigned char ch : text) out.push_back(2 + int32_t(ch));
  return out;
}

namespace {

std::string FakeText(const TokenIds& tokens) {
  std::string out;
  for (int32_t t : tokens) {
    if (t >= 2) out.push_back(static_cast<char>(t - 2));
  }
  return out;
}

double LogSumExp(const std::vector<float>& l, const std::vector<int32_t>* only = nullptr) {
  double m = -INFINITY;
  auto each = [&](auto&& f) {
    if (only) {
      for (int32_t v : *only) f(double(l[size_t(v)]));
    } else {
      for (float x : l) f(double(x));
    }
  };
  each([&](double x) { m = std::max(m, x); });
  if (!std::isfinite(m)) return m;
  double s = 0;
  each([&](double x) { s += std::exp(x - m); });
  return m + std::log(s);
}

// log P of the ids not in `ids` (-745, about exp's smallest, when every id is in it).
double TailLogprob(const std::vector<float>& l, const std::vector<int32_t>& ids, double lse) {
  std::vector<int32_t> rest;
  for (int32_t v = 0; v < int32_t(kVocab); ++v) {
    if (std::find(ids.begin(), ids.end(), v) == ids.end()) rest.push_back(v);
  }
  return rest.empty() ? -745.0 : LogSumExp(l, &rest) - lse;
}

int32_t Argmax(const std::vector<float>& l) {
  return int32_t(std::max_element(l.begin(), l.end()) - l.begin());  // the first on ties
}

}  // namespace

// One worker of the fake: its model, context and pending frames.
class FakeChannel : public worker::WorkerChannel {
 public:
  FakeChannel(FakeWorker* fake, int launch) : fake_(fake), launch_(launch) {}

  Result<json, CallError> Call(json req, std::chrono::milliseconds) override {
    const std::string op = req.value("op", "");
    fake_->calls_.push_back({launch_, op, req});
    if (!alive_) return worker::BrokenCall(op, "the fake worker is dead", kProgram);
    if (frames_left_ > 0) {
      alive_ = false;
      return Bad(op, "a request while " + std::to_string(frames_left_) + " frames were unread",
                 true);
    }
    if (const FailRule* r = fake_->Fires(op, launch_)) {
      if (r->broken) {
        alive_ = false;
        return worker::BrokenCall(op, "the fake worker broke during '" + op + "', as told",
                                  kProgram);
      }
      return worker::FailedCall(op, "the fake worker failed '" + op + "', as told", kProgram);
    }
    if (fake_->Lacks(op, launch_))
      return worker::FailedCall(op, "unknown op '" + op + "'", kProgram);
    clock_ += 1'000'000;
    try {
      Result<json> body = Answer(op, req);
      if (!body) return Bad(op, body.error().message, false);
      json out = std::move(*body);
      for (const auto& [o, field] : fake_->dropped_) {
        if (o != op) continue;
        // "model.n_vocab": a field of an object field.
        const size_t dot = field.find('.');
        if (dot == std::string::npos) {
          out.erase(field);
        } else if (auto it = out.find(field.substr(0, dot)); it != out.end() && it->is_object()) {
          it->erase(field.substr(dot + 1));
        }
      }
      out["id"] = ++id_;
      out["ok"] = true;
      if (op == protocol::op::kShutdown) alive_ = false;
      return out;
    } catch (const json::exception& e) {
      return Bad(op, e.what(), false);
    }
  }

  Result<void, CallError> ReadFrame(worker::LogitsFrame* frame, size_t n_values,
                                    std::chrono::milliseconds) override {
    if (!alive_ || frames_left_ <= 0) {
      alive_ = false;
      return worker::BrokenCall("frames", "no frame is due", kProgram);
    }
    ++fake_->frames_read_;
    --frames_left_;
    if (const FailRule* r = fake_->Fires("frames", launch_)) {
      frames_left_ = 0;
      if (r->broken) {
        alive_ = false;
        return worker::BrokenCall("frames", "the fake worker broke during its frames, as told",
                                  kProgram);
      }
      return worker::FailedCall("frames", "the fake worker aborted its frames, as told", kProgram);
    }
    if (n_values != size_t(kVocab)) {
      alive_ = false;
      return worker::BrokenCall("frames", "a frame of another length", kProgram);
    }
    frame->position = frame_position_;
    frame->t_ns = clock_ += 1000;
    frame->logits = Logits(model_.logit_scale, frame_tokens_[size_t(frame_position_)]);
    ++frame_position_;
    return {};
  }

  std::string StderrTail() const override { return "fake stderr"; }
  int Pid() const override { return 1000 + launch_; }
  bool Alive() const override { return alive_; }
  void Shutdown(std::chrono::milliseconds) override { alive_ = false; }

 private:
  static constexpr const char* kProgram = "fake-worker";

  // A request the protocol (or the fake's state) rejects: recorded, answered ok:false.
  CallError Bad(const std::string& op, const std::string& why, bool broken) {
    fake_->bad_requests_.push_back(op + ": " + why);
    return broken ? worker::BrokenCall(op, why, kProgram) : worker::FailedCall(op, why, kProgram);
  }

  static json Out(const nlohmann::ordered_json& typed) { return json(typed); }

  Status CheckTokens(const TokenIds& tokens) const {
    for (int32_t t : tokens) {
      if (t < 0 || t >= kVocab) return Error{"token id " + std::to_string(t) + " out of range"};
    }
    return {};
  }

  Status Ready(bool need_context) const {
    if (!loaded_) return Error{"no model is loaded"};
    if (need_context && n_ctx_ == 0) return Error{"no context"};
    return {};
  }

  Result<json> Answer(const std::string& op, const json& req) {
    namespace p = protocol;
    if (op == p::op::kHello) {
      if (auto r = p::HelloRequest::FromJson(req); !r) return r.error();
      p::HelloResponse h;
      h.runtime = "llama.cpp";
      h.runtime_version = "fake";
      h.runtime_build = {{"system_info", "FAKE"}};
      h.pid = Pid();
      for (std::string_view o : p::Ops()) {
        const std::string s(o);
        if (s != p::op::kQuantize && s != p::op::kImatrix && !fake_->Lacks(s, launch_)) {
          h.ops.push_back(s);
        }
      }
      return Out(h.ToJson());
    }
    if (op == p::op::kResetPeakMemory) {
      if (auto r = p::ResetPeakMemoryRequest::FromJson(req); !r) return r.error();
      return Out(p::ResetPeakMemoryResponse{true, kRss, kRss}.ToJson());
    }
    if (op == p::op::kMemory) {
      if (auto r = p::MemoryRequest::FromJson(req); !r) return r.error();
      return Out(p::MemoryResponse{kRss, kHwm, std::nullopt, std::nullopt}.ToJson());
    }
    if (op == p::op::kShutdown) {
      if (auto r = p::ShutdownRequest::FromJson(req); !r) return r.error();
      return Out(p::ShutdownResponse{}.ToJson());
    }
    if (op == p::op::kLoadModel) return LoadModel(req);
    if (op == p::op::kInitContext) return InitContext(req);
    if (op == p::op::kTokenize) {
      auto r = p::TokenizeRequest::FromJson(req);
      if (!r) return r.error();
      if (auto st = Ready(false); !st) return st.error();
      return Out(
          p::TokenizeResponse{FakeTokens(r->text, r->add_special && model_.add_bos)}.ToJson());
    }
    if (op == p::op::kDetokenize) {
      auto r = p::DetokenizeRequest::FromJson(req);
      if (!r) return r.error();
      if (auto st = Ready(false); !st) return st.error();
      if (auto st = CheckTokens(r->tokens); !st) return st.error();
      return Out(p::DetokenizeResponse{FakeText(r->tokens)}.ToJson());
    }
    if (op == p::op::kPp) return Pp(req);
    if (op == p::op::kTg) return Tg(req);
    if (op == p::op::kTtft) return Ttft(req);
    if (op == p::op::kScore) return Score(req);
    if (op == p::op::kChat) return Chat(req);
    if (op == p::op::kRenderChat) return RenderChat(req);
    return Error{"unknown op '" + op + "'"};
  }

  Result<json> LoadModel(const json& req) {
    auto r = protocol::LoadModelRequest::FromJson(req);
    if (!r) return r.error();
    model_ = fake_->Model(r->path);
    loaded_ = true;
    n_ctx_ = 0;
    protocol::LoadModelResponse resp;
    resp.t_start_ns = clock_;
    resp.t_end_ns = clock_ += kLoadNs;
    resp.rss_before = 10;
    resp.rss_after = 110;
    resp.model.desc = "fake " + r->path;
    resp.model.n_params = 1000;
    resp.model.n_vocab = kVocab;
    resp.model.bos = kBos;
    resp.model.add_bos = model_.add_bos;
    resp.model.eos = kEos;
    resp.applied = r->options;
    return Out(resp.ToJson());
  }

  // As llama.cpp: its defaults for what the request leaves out, the batches clamped to n_ctx.
  Result<json> InitContext(const json& req) {
    auto r = protocol::InitContextRequest::FromJson(req);
    if (!r) return r.error();
    if (auto st = Ready(false); !st) return st.error();
    const json& o = r->options;
    protocol::InitContextResponse resp;
    resp.t_start_ns = clock_;
    resp.t_end_ns = clock_ += kContextNs;
    resp.n_ctx = r->n_ctx;
    resp.n_batch = std::min<int64_t>(o.value("n_batch", int64_t{2048}), r->n_ctx);
    const std::string fa = o.value("flash_attn", std::string("auto"));
    resp.applied = o;
    resp.applied.erase("n_batch");
    resp.applied["n_ubatch"] = std::min<int64_t>(
        {o.value("n_ubatch", int64_t{512}), r->n_ctx, fake_->max_ubatch_.value_or(INT64_MAX)});
    resp.applied["n_threads"] = o.value("n_threads", int64_t{2});
    resp.applied["type_k"] = o.value("type_k", std::string("f16"));
    resp.applied["type_v"] = o.value("type_v", std::string("f16"));
    resp.applied["flash_attn"] = fa;
    resp.applied["flash_attn_resolved"] = fa == "auto" ? "on" : fa;
    n_ctx_ = resp.n_ctx;
    n_batch_ = *resp.n_batch;
    return Out(resp.ToJson());
  }

  Result<json> Pp(const json& req) {
    auto r = protocol::PpRequest::FromJson(req);
    if (!r) return r.error();
    if (auto st = Ready(true); !st) return st.error();
    if (auto st = CheckTokens(r->tokens); !st) return st.error();
    const int64_t n = int64_t(r->tokens.size()), batch = r->n_batch.value_or(n_batch_);
    protocol::PpResponse resp;
    resp.n_tokens = n;
    resp.t_start_ns = clock_;
    for (int64_t done = 0; done < n; done += batch) {
      clock_ += std::min(batch, n - done) * kPpNsPerToken;
      resp.batch_end_ns.push_back(clock_);
    }
    resp.t_end_ns = clock_;
    return Out(resp.ToJson());
  }

  Result<json> Tg(const json& req) {
    auto r = protocol::TgRequest::FromJson(req);
    if (!r) return r.error();
    if (auto st = Ready(true); !st) return st.error();
    if (auto st = CheckTokens(r->prompt); !st) return st.error();
    if (auto st = CheckTokens({r->first_token}); !st) return st.error();
    clock_ += int64_t(r->prompt.size()) * kPpNsPerToken;  // the untimed prompt
    protocol::TgResponse resp;
    resp.n_gen = r->n_gen;
    resp.t_start_ns = clock_;
    int32_t last = r->first_token;
    for (int64_t i = 0; i < r->n_gen; ++i) {
      last = Argmax(Logits(model_.logit_scale, last));
      resp.tokens.push_back(last);
      resp.token_end_ns.push_back(clock_ += kTgNsPerToken);
    }
    return Out(resp.ToJson());
  }

  Result<json> Ttft(const json& req) {
    auto r = protocol::TtftRequest::FromJson(req);
    if (!r) return r.error();
    if (auto st = Ready(true); !st) return st.error();
    const TokenIds tokens = FakeTokens(r->text, r->add_special && model_.add_bos);
    if (tokens.empty()) return Error{"nothing to decode"};
    protocol::TtftResponse resp;
    resp.n_prompt_tokens = int64_t(tokens.size());
    resp.t_start_ns = clock_;
    resp.t_tokenized_ns = clock_ += 1000;
    resp.t_first_token_ns = clock_ += resp.n_prompt_tokens * kPpNsPerToken;
    resp.token = Argmax(Logits(model_.logit_scale, tokens.back()));
    return Out(resp.ToJson());
  }

  Result<json> Score(const json& req) {
    auto r = protocol::ScoreRequest::FromJson(req);
    if (!r) return r.error();
    if (auto st = Ready(true); !st) return st.error();
    if (auto st = CheckTokens(r->tokens); !st) return st.error();
    if (int64_t(r->tokens.size()) > n_ctx_) return Error{"more tokens than the context holds"};
    const int64_t n = int64_t(r->tokens.size());
    if (r->logits) {
      protocol::ScoreFramesResponse head;
      head.n_tokens = n;
      head.from = r->from;
      head.frames = r->n_scored();
      head.n_vocab = kVocab;
      head.t_start_ns = clock_;
      frame_tokens_ = r->tokens;
      frame_position_ = r->from;
      frames_left_ = r->n_scored();
      return Out(head.ToJson());
    }
    protocol::ScoreResponse resp;
    resp.n_tokens = n;
    resp.from = r->from;
    resp.t_start_ns = clock_;
    if (r->top_k > 0)
      resp.top_ids.emplace(), resp.top_logprobs.emplace(), resp.top_tail_logprob.emplace();
    if (r->ids) resp.ids_logprob.emplace(), resp.ids_tail_logprob.emplace();
    for (int64_t p = r->from; p + 1 < n; ++p) {
      const std::vector<float> l = Logits(model_.logit_scale, r->tokens[size_t(p)]);
      const double lse = LogSumExp(l);
      resp.logprob.push_back(double(l[size_t(r->tokens[size_t(p + 1)])]) - lse);
      resp.argmax.push_back(Argmax(l));
      resp.logsumexp.push_back(lse);
      if (r->top_k > 0) {
        std::vector<int32_t> ids(static_cast<size_t>(kVocab));
        std::iota(ids.begin(), ids.end(), 0);
        std::stable_sort(ids.begin(), ids.end(),
                         [&](int32_t a, int32_t b) { return l[size_t(a)] > l[size_t(b)]; });
        ids.resize(static_cast<size_t>(std::min<int64_t>(r->top_k, kVocab)));
        std::vector<double> lp;
        for (int32_t v : ids) lp.push_back(double(l[size_t(v)]) - lse);
        resp.top_tail_logprob->push_back(TailLogprob(l, ids, lse));
        resp.top_ids->push_back(std::vector<int64_t>(ids.begin(), ids.end()));
        resp.top_logprobs->push_back(std::move(lp));
      }
      if (r->ids) {
        const TokenIds& ids = (*r->ids)[size_t(p - r->from)];
        if (auto st = CheckTokens(ids); !st) return st.error();
        std::vector<double> lp;
        for (int32_t v : ids) lp.push_back(double(l[size_t(v)]) - lse);
        resp.ids_logprob->push_back(std::move(lp));
        resp.ids_tail_logprob->push_back(TailLogprob(l, ids, lse));
      }
    }
    clock_ += n * kPpNsPerToken;
    resp.t_end_ns = clock_;
    return Out(resp.ToJson());
  }

  // The fake chat template: `<|role|>content` lines, then the assistant's turn opened.
  static std::string FakeChatPrompt(const std::vector<protocol::ChatMessage>& messages) {
    std::string prompt;
    for (const protocol::ChatMessage& m : messages)
      prompt += "<|" + m.role + "|>" + m.content + "\n";
    return prompt + "<|assistant|>";
  }

  // render_chat needs no model: the fake template, whatever template text it is given.
  Result<json> RenderChat(const json& req) {
    auto r = protocol::RenderChatRequest::FromJson(req);
    if (!r) return r.error();
    protocol::RenderChatResponse resp;
    resp.template_text = "{# the fake chat template #}";
    resp.template_origin = "model";
    resp.template_options = r->template_options;
    resp.prompt = FakeChatPrompt(r->messages);
    return Out(resp.ToJson());
  }

  Result<json> Chat(const json& req) {
    auto r = protocol::ChatRequest::FromJson(req);
    if (!r) return r.error();
    if (auto st = Ready(true); !st) return st.error();
    protocol::ChatResponse resp;
    if (r->prompt_tokens) {
      if (auto st = CheckTokens(*r->prompt_tokens); !st) return st.error();
      resp.prompt = FakeText(*r->prompt_tokens);
      resp.n_prompt_tokens = int64_t(r->prompt_tokens->size());
    } else if (r->prompt) {
      resp.prompt = *r->prompt;
      resp.n_prompt_tokens = int64_t(FakeTokens(resp.prompt, model_.add_bos).size());
    } else {
      resp.prompt = FakeChatPrompt(r->messages);
      resp.n_prompt_tokens = int64_t(FakeTokens(resp.prompt, model_.add_bos).size());
      resp.template_text = "{# the fake chat template #}";
      resp.template_origin = "model";
      resp.template_options = r->template_options;
      resp.enable_thinking = false;
    }
    resp.tokens = FakeTokens(model_.reply, false);
    resp.stop = "eog";
    for (size_t n = 1; !r->stop.empty() && n <= resp.tokens.size(); ++n) {
      const std::string so_far = FakeText(TokenIds(resp.tokens.begin(), resp.tokens.begin() + n));
      if (std::any_of(r->stop.begin(), r->stop.end(),
                      [&](const std::string& s) { return so_far.find(s) != std::string::npos; })) {
        resp.tokens.resize(n);
        resp.stop = "stop";
        break;
      }
    }
    if (int64_t(resp.tokens.size()) > r->max_tokens) {
      resp.tokens.resize(size_t(r->max_tokens));
      resp.stop = "max_tokens";
    }
    resp.text = FakeText(resp.tokens);
    resp.t_start_ns = clock_;
    resp.t_first_token_ns = clock_ += resp.n_prompt_tokens * kPpNsPerToken;
    resp.t_end_ns = clock_ += int64_t(resp.tokens.size()) * kTgNsPerToken;
    return Out(resp.ToJson());
  }

  FakeWorker* fake_;
  int launch_;
  bool alive_ = true;
  int64_t id_ = 0;
  int64_t clock_ = 0;
  FakeModel model_;
  bool loaded_ = false;
  int64_t n_ctx_ = 0, n_batch_ = 0;
  TokenIds frame_tokens_;
  int64_t frame_position_ = 0, frames_left_ = 0;
};

Result<std::unique_ptr<worker::WorkerChannel>> FakeWorker::Launch(
    const std::vector<std::string>& argv) {
  ++launches_;
  programs_[launches_] = argv.empty() ? "" : argv[0];
  return std::unique_ptr<worker::WorkerChannel>(new FakeChannel(this, launches_));
}

int FakeWorker::Count(const std::string& op) const {
  return int(
      std::count_if(calls_.begin(), calls_.end(), [&](const FakeCall& c) { return c.op == op; }));
}

std::vector<std::string> FakeWorker::Ops(int launch) const {
  std::vector<std::string> out;
  for (const FakeCall& c : calls_) {
    if (launch == 0 || c.launch == launch) out.push_back(c.op);
  }
  return out;
}

const FakeModel& FakeWorker::Model(const std::string& path) const {
  static const FakeModel kDefault;
  auto it = models_.find(path);
  return it == models_.end() ? kDefault : it->second;
}

bool FakeWorker::Lacks(const std::string& op, int launch) const {
  const auto it = programs_.find(launch);
  const std::string program = it == programs_.end() ? "" : it->second;
  return std::any_of(lacking_.begin(), lacking_.end(), [&](const auto& lack) {
    return lack.first == op && (lack.second.empty() || lack.second == program);
  });
}

const FailRule* FakeWorker::Fires(const std::string& op, int launch) {
  const int all = ++seen_[op];
  const int here = ++seen_in_[{launch, op}];
  for (const FailRule& r : rules_) {
    if (r.op != op) continue;
    if (r.launch > 0 ? (r.launch == launch && r.nth == here) : r.nth == all) return &r;
  }
  return nullptr;
}

}  // namespace pipette::testing
