#include "pipette/workload/kld/kld.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "pipette/estimate/work.h"
#include "pipette/protocol/model_ops.h"
#include "pipette/protocol/session_ops.h"
#include "pipette/protocol/version.h"
#include "pipette/util/files.h"
#include "pipette/util/json_read.h"
#include "pipette/util/sha256.h"
#include "pipette/util/utf8.h"
#include "pipette/workload/chunks.h"
#include "pipette/workload/kld/derive.h"
#include "pipette/workload/kld/kld_frames.h"
#include "pipette/workload/kld/spec.h"
#include "pipette/workload/timing.h"
#include "pipette/workload/token_agreement.h"

namespace pipette::workload {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

// Identifies a token sequence (the kld reference's tokens of its corpus).
std::string TokensSha256(const std::vector<int64_t>& tokens) {
  return Sha256Hex(json(tokens).dump());
}

class Kld : public Workload {
 public:
  std::string Name() const override { return "kld"; }

  std::vector<Phase> Phases(const config::Experiment& ex) const override {
    if (!KldSpecOf(ex)) return {};
    return {{"kld", {protocol::op::kTokenize, protocol::op::kScore}}};
  }

  int64_t ContextNeed(const config::Experiment& ex, int64_t) const override {
    const KldSpec* spec = KldSpecOf(ex);
    return spec ? spec->n_ctx : 0;
  }

  void PlanWork(const config::Experiment& ex, const plan::Cell& cell,
                std::vector<estimate::Work>* out) const override {
    const KldSpec* spec = KldSpecOf(ex);
    if (!spec) return;
    const double chunks = double(estimate::CorpusChunks(spec->corpus, spec->n_ctx, spec->chunks));
    // The reference's cell scores its chunks twice: as the reference, and as a model.
    if (cell.model.name == spec->reference) {
      out->push_back({cell.Key(), "kld_ref", "kld", chunks, double(spec->n_ctx)});
    }
    out->push_back({cell.Key(), "kld", "kld", chunks, double(spec->n_ctx)});
  }

  // The top-k reference distribution a kept cell was compared with (else the first kept cell of
  // the reference model): {cell_id, top_ids (per chunk), tokens_sha256}. The full-vocabulary mode
  // keeps no reference in the store: its reference worker starts anew.
  Result<json> ResumeState(store::Store& store, const config::Experiment& ex,
                           const ResumeInput& in) const override {
    if (!KldSpecOf(ex) || KldSpecOf(ex)->mode != KldMode::kTopK) return json();
    auto samples = store.SamplesOfRun(in.run_id, {"kld", "kld_ref"});
    if (!samples) return samples.error();
    std::set<int64_t> kept;
    for (const auto& [index, id] : in.kept) kept.insert(id);
    int64_t ref = 0;
    std::map<int64_t, json> recorded;  // cell id -> its reference
    for (const store::SampleRecord& s : *samples) {
      // Stored samples are read type-checked: another shape reads as absent, never throws.
      const json& request = json_read::Ref(s.raw, "request");
      if (s.test == "kld" && kept.count(s.cell_id) && !ref) {
        ref = json_read::Int(request, "ref_cell_id").value_or(0);
      } else if (s.test == "kld_ref") {
        json& r = recorded[s.cell_id];
        r["cell_id"] = s.cell_id;
        r["top_ids"].push_back(json_read::Member(s.raw, "top_ids"));
        r["tokens_sha256"] = json_read::String(request, "tokens_sha256");
      }
    }
    if (!ref) ref = FirstKeptCellOf(in, KldSpecOf(ex)->reference);
    auto it = recorded.find(ref);
    if (it == recorded.end() || !kept.count(ref)) return json();
    if (it->second["tokens_sha256"].get<std::string>().empty()) {
      return InputError(fmt::format(
          "run {}'s kld reference (cell id {}) was recorded by a Pipette before store schema 2, "
          "without the hash of its tokens that the cells measured now are checked against: "
          "measure the experiment in a new run",
          in.run_id, ref));
    }
    return it->second;
  }

  void Resume(const json& state) override {
    ref_ids_ = state.value("top_ids", json::array()).get<std::vector<json>>();
    ref_tokens_sha256_ = state.value("tokens_sha256", "");
    ref_cell_id_ = state.value("cell_id", int64_t{0});
  }

  void Finish() override { ResetReference(); }

  // A scored chunk, the reference's (kld_ref) included: per token of the chunk (its request names
  // its length).
  std::optional<estimate::Measured> Timed(const store::SampleRecord& s) const override {
    if (s.test != "kld" && s.test != "kld_ref") return std::nullopt;
    return ChunkTimed(s.raw, "kld");
  }

  metrics::Headlines Headlines() const override { return {KldHeadline()}; }

  bool ReadsOtherCells(const std::vector<store::SampleRecord>& samples) const override {
    return std::any_of(samples.begin(), samples.end(),
                       [](const store::SampleRecord& s) { return s.test == "kld"; });
  }

  Status Derive(const metrics::ResultRow& base, const metrics::CellSamples& cell,
                const metrics::CellsById& by_id, const store::EnvironmentRecord&,
                std::vector<metrics::ResultRow>* rows) const override {
    return DeriveKld(base, cell.samples, by_id, rows);
  }

  RunStatus Run(Context& ctx, size_t) override {
    const KldSpec& spec = *KldSpecOf(ctx.Experiment());
    if (text_.empty()) {
      auto text = ReadFileToString(spec.corpus);
      if (!text || text->empty()) return Failed("cannot read the corpus " + spec.corpus);
      // Checked when the experiment was resolved; a file changed since must not reach a JSON
      // request (which takes only UTF-8) either.
      if (auto bad = FirstInvalidUtf8(*text)) {
        return Failed(NotUtf8Error(spec.corpus, *text, *bad).message);
      }
      text_ = std::move(*text);
      corpus_sha256_ = Sha256Hex(text_);
    }
    auto tokens = Tokenize(ctx, std::string(quality::CorpusText(text_)));
    if (!tokens) return tokens.error();
    const auto chunks =
        quality::PplChunks(static_cast<int64_t>(tokens->size()), spec.n_ctx, spec.chunks);
    if (chunks.empty()) return Failed("the kld corpus is shorter than one chunk");
    if (spec.mode == KldMode::kFull) return RunFull(ctx, *tokens, chunks);
    return RunTopK(ctx, *tokens, chunks);
  }

 private:
  // Full vocabulary: the reference worker and the cell's worker score each chunk with
  // `logits: true`; the frames are compared position by position as they arrive, and only the
  // per-position facts are stored (one `kld` sample per chunk).
  RunStatus RunFull(Context& ctx, const std::vector<int64_t>& tokens,
                    const std::vector<quality::PplChunk>& chunks) {
    const KldSpec& spec = *KldSpecOf(ctx.Experiment());
    if (auto st = EnsureReference(ctx); !st) return st;
    if (auto differs = FirstTokenDifference(tokens, ref_.tokens)) {
      return Failed(
          fmt::format("the model's tokenizer differs from the kld reference '{}' "
                      "on the corpus, {}: KL divergence needs the same tokenizer",
                      spec.reference, *differs));
    }
    if (!ctx.Model().n_vocab) {
      return Failed(
          "the runtime did not report the model's vocabulary size (load_model: model.n_vocab): "
          "KL divergence compares distributions over it");
    }
    const int64_t n_vocab = *ctx.Model().n_vocab;
    if (n_vocab != ref_.n_vocab) {
      return Failed(
          fmt::format("the model's vocabulary has {} ids, the kld reference '{}' {}: "
                      "KL divergence needs the same vocabulary",
                      n_vocab, spec.reference, ref_.n_vocab));
    }
    if (auto st = ctx.Keep("kld_reference", 0, false, ref_.facts); !st) return st;
    const int64_t bos = ChunkBos(ctx.Model());
    for (size_t c = 0; c < chunks.size(); ++c) {
      if (ctx.Stopped()) return Failed("interrupted");
      const quality::PplChunk& ch = chunks[c];
      const std::vector<int64_t> chunk_tokens = quality::ChunkTokens(tokens, ch, bos);
      if (chunk_tokens != quality::ChunkTokens(tokens, ch, ref_.chunk_bos)) {
        return Failed(
            fmt::format("the model starts chunks with BOS {} and the kld reference "
                        "'{}' with {}: the chunks would differ",
                        bos, spec.reference, ref_.chunk_bos));
      }
      protocol::ScoreRequest score = ChunkScoreRequest(ctx, tokens, ch);
      score.logits = true;
      const json req = score.ToJson();
      const auto t0 = std::chrono::steady_clock::now();
      auto ref_resp = ctx.Call(req, ref_.channel.get());
      if (!ref_resp) return ReferenceFailed(ctx, ref_resp.error().message);
      auto resp = ctx.Call(req);
      if (!resp) {
        ResetReference();  // left with frames no one reads
        return resp.error();
      }
      const int64_t n_frames = static_cast<int64_t>(chunk_tokens.size()) - 1 - ch.from;
      protocol::ScoreFramesResponse ref_head, head;
      for (auto [raw, typed] : {std::pair{&*ref_resp, &ref_head}, std::pair{&*resp, &head}}) {
        auto h = protocol::ScoreFramesResponse::FromJson(*raw);
        if (!h || h->frames != n_frames || h->n_vocab != n_vocab) {
          ResetReference();
          return Broken(
              fmt::format("a worker announced {} frames of {} logits for {} positions "
                          "of a {}-id vocabulary",
                          raw->value("frames", json()).dump(), raw->value("n_vocab", json()).dump(),
                          n_frames, n_vocab));
        }
        *typed = *h;
      }
      auto reduced =
          ReduceKldFrames(*ref_.channel, ctx.Channel(), ch.from, n_frames,
                          static_cast<size_t>(n_vocab), chunk_tokens, t0 + ctx.Timeout());
      if (!reduced) {
        // Both workers are left mid-frames: neither serves another request.
        if (reduced.error().reference) return ReferenceFailed(ctx, reduced.error().error.message);
        ResetReference();
        return Broken(reduced.error().error.message);
      }
      const KldChunkFacts& facts = *reduced;
      ctx.Done("kld", ch.n_ctx, SecondsSince(t0));
      json raw = {{"mode", "full"},
                  {"n_tokens", chunk_tokens.size()},
                  {"from", ch.from},
                  {"n_vocab", n_vocab},
                  {"t_start_ns", head.t_start_ns},
                  {"t_end_ns", facts.t_end_ns},
                  {"ref_t_start_ns", ref_head.t_start_ns},
                  {"ref_t_end_ns", facts.ref_t_end_ns},
                  {"kl", facts.kl},
                  {"ref_logprob", facts.ref_logprob},
                  {"logprob", facts.logprob},
                  {"ref_argmax", facts.ref_argmax},
                  {"ref_max_logprob", facts.ref_max_logprob},
                  {"argmax", facts.argmax}};
      raw["request"] = ChunkFacts(ctx, c, ch);
      raw["request"].update({{"reference", spec.reference},
                             {"corpus_sha256", corpus_sha256_},
                             {"tokens_sha256", ref_.tokens_sha256}});
      if (auto st = ctx.Keep("kld", static_cast<int>(c), false, raw); !st) return st;
      ChunkDone(ctx, "kld", c, chunks.size());
    }
    return {};
  }

  // The first cell of the reference model in the plan: whose model, load parameters and cache
  // types the reference worker uses.
  static const plan::Cell* ReferenceCell(Context& ctx) {
    for (const plan::Cell& c : ctx.Cells()) {
      if (c.model.name == KldSpecOf(ctx.Experiment())->reference) return &c;
    }
    return nullptr;
  }

  // The reference worker, started (hello, load_model, the corpus tokenized) once per run and
  // again after a failure, with a context of this cell's n_ctx, n_batch, n_ubatch and threads
  // (made anew when they change) and the reference cell's cache types and flash attention.
  RunStatus EnsureReference(Context& ctx) {
    const plan::Cell* rc = ReferenceCell(ctx);
    if (!rc) return Failed("the kld reference is not a model of this run");
    if (!rc->model.unavailable.empty()) {
      return Failed(fmt::format("the kld reference '{}' is unavailable: {}", rc->model.name,
                                rc->model.unavailable));
    }
    if (!ref_.channel || !ref_.channel->Alive()) {
      ResetReference();
      ctx.Step(fmt::format("kld: starting the reference worker ({})", rc->model.name));
      auto ch = ctx.Device().StartWorker({rc->runtime.worker});
      if (!ch) return ReferenceFailed(ctx, ch.error().message);
      ref_.channel = std::move(*ch);
      auto hello = ctx.Call(protocol::HelloRequest{}.ToJson(), ref_.channel.get());
      if (!hello) return ReferenceFailed(ctx, hello.error().message);
      auto typed_hello = protocol::HelloResponse::FromJson(*hello);
      if (!typed_hello) return ReferenceFailed(ctx, typed_hello.error().message);
      if (typed_hello->protocol != protocol::kProtocolVersion) {
        return ReferenceFailed(ctx,
                               fmt::format("it speaks protocol version {}; this pipette speaks {}",
                                           typed_hello->protocol, protocol::kProtocolVersion));
      }
      auto load_req = ctx.LoadRequest(*rc);
      if (!load_req) return ReferenceFailed(ctx, load_req.error().message);
      auto load = ctx.Call(*load_req, ref_.channel.get());
      if (!load) return ReferenceFailed(ctx, load.error().message);
      auto loaded = protocol::LoadModelResponse::FromJson(*load);
      if (!loaded) return ReferenceFailed(ctx, loaded.error().message);
      if (!loaded->model.n_vocab) {
        return ReferenceFailed(ctx,
                               "its runtime did not report the vocabulary size "
                               "(load_model: model.n_vocab)");
      }
      ref_.n_vocab = *loaded->model.n_vocab;
      ref_.chunk_bos = ChunkBos(loaded->model);
      auto tok = Tokenize(ctx, std::string(quality::CorpusText(text_)), true, ref_.channel.get());
      if (!tok) return ReferenceFailed(ctx, tok.error().message);
      ref_.tokens = std::move(*tok);
      ref_.tokens_sha256 = TokensSha256(ref_.tokens);
      ref_.facts = {{"model", rc->model.name},
                    {"path", rc->model.path},
                    {"pid", ref_.channel->Pid()},
                    {"runtime_version", typed_hello->runtime_version},
                    {"load", RawFacts(*load)}};
      ref_.facts["load"].erase("model");
      ref_.facts["n_vocab"] = ref_.n_vocab;
      ref_.context_key.clear();
    }
    // The cell's context sizes and threads; the reference cell's parameters that change the
    // distribution (llama.cpp: cache types, flash attention), so the reference distribution stays
    // one across cells, each sent only where set.
    json ctx_req = ctx.ContextRequest(ctx.Cell());
    const bool same_runtime = rc->runtime.name == ctx.Cell().runtime.name;
    for (const runtime::ParamDef& def : ctx.Params().defs()) {
      // A reference of another runtime (llama.cpp's F32 against a converted model) is sent only
      // the parameters its runtime has.
      if (!same_runtime && !def.runtimes.empty() &&
          std::find(def.runtimes.begin(), def.runtimes.end(), rc->runtime.name) ==
              def.runtimes.end()) {
        for (const std::string& field : def.request_fields) ctx_req.erase(field);
        continue;
      }
      if (!def.changes_distribution || def.scope != runtime::ParamScope::kContext) continue;
      for (const std::string& field : def.request_fields) ctx_req.erase(field);
      if (!rc->HasParam(def.name)) continue;
      const json value = runtime::ParamRegistry::ToJson(def, rc->Param(def.name));
      for (const std::string& field : def.request_fields) ctx_req[field] = value;
    }
    if (ctx_req.dump() != ref_.context_key) {
      auto made = ctx.Call(ctx_req, ref_.channel.get());
      if (!made) return ReferenceFailed(ctx, made.error().message);
      auto typed = protocol::InitContextResponse::FromJson(*made);
      if (!typed) return ReferenceFailed(ctx, typed.error().message);
      // The same runtime scores the same positions in the same batches; another runtime's
      // batches are its own (stored in the facts).
      if (same_runtime && typed->n_batch != ctx.NBatch()) {
        auto text = [](const std::optional<int64_t>& n) {
          return n ? std::to_string(*n) : std::string("none");
        };
        return ReferenceFailed(ctx, fmt::format("its runtime applied n_batch {} where the cell's "
                                                "applied {}",
                                                text(typed->n_batch), text(ctx.NBatch())));
      }
      ref_.context_key = ctx_req.dump();
      ref_.facts["context"] = RawFacts(*made);
    }
    return {};
  }

  // The reference worker failed: the kld phase (so the cell) fails saying so, with the worker's
  // last standard error; a fresh reference worker serves the next cell.
  RunError ReferenceFailed(Context& ctx, const std::string& why) {
    std::string tail = ref_.channel ? ref_.channel->StderrTail() : "";
    if (tail.size() > 1000) tail = tail.substr(tail.size() - 1000);
    ResetReference();
    return Broken(fmt::format("the kld reference worker ({}) failed: {}{}",
                              KldSpecOf(ctx.Experiment())->reference, why,
                              tail.empty() ? "" : "; its standard error ended with: " + tail));
  }

  void ResetReference() {
    if (ref_.channel) ref_.channel->Shutdown(milliseconds(2000));
    ref_ = {};
  }

  // Top-k mode: the first cell of the reference model records the reference distribution (top-k
  // log-probabilities per scored position); every cell, that one included, then scores the same
  // positions asking for the log-probabilities of the reference's top-k ids.
  RunStatus RunTopK(Context& ctx, const std::vector<int64_t>& tokens,
                    const std::vector<quality::PplChunk>& chunks) {
    const KldSpec& spec = *KldSpecOf(ctx.Experiment());
    if (ref_ids_.empty() && ctx.Cell().model.name == spec.reference) {
      // Kept only once every chunk is recorded: a reference cut short serves no one.
      std::vector<json> ref_ids;
      for (size_t c = 0; c < chunks.size(); ++c) {
        const quality::PplChunk& ch = chunks[c];
        protocol::ScoreRequest req = ChunkScoreRequest(ctx, tokens, ch);
        req.top_k = spec.top_k;
        auto resp = ctx.Call(req.ToJson());
        if (!resp) return resp.error();
        auto typed = protocol::ScoreResponse::FromJson(*resp);
        if (!typed || !typed->top_ids) {
          return Broken(typed ? "the score response has no top_ids" : typed.error().message);
        }
        ref_ids.push_back(*typed->top_ids);
        json raw = RawFacts(std::move(*resp));
        raw["request"] = {{"chunk", c},
                          {"begin", ch.begin},
                          {"n_ctx", ch.n_ctx},
                          {"top_k", spec.top_k},
                          {"corpus_sha256", corpus_sha256_},
                          {"tokens_sha256", TokensSha256(tokens)}};
        if (auto st = ctx.Keep("kld_ref", static_cast<int>(c), false, raw); !st) return st;
      }
      ref_ids_ = std::move(ref_ids);
      ref_tokens_sha256_ = TokensSha256(tokens);
      ref_tokens_ = tokens;
      ref_cell_id_ = ctx.Record().id;
    }
    if (ref_ids_.empty()) {
      return Failed(
          fmt::format("no reference distribution: the first cell of the kld "
                      "reference '{}' did not record one",
                      spec.reference));
    }
    if (TokensSha256(tokens) != ref_tokens_sha256_) {
      // The reference's tokens are known in this run; a resumed run has their SHA-256 only.
      const auto differs =
          ref_tokens_.empty() ? std::nullopt : FirstTokenDifference(tokens, ref_tokens_);
      return Failed(
          fmt::format("the model's tokenizer differs from the kld reference '{}' "
                      "on the corpus{}: KL divergence needs the same tokenizer",
                      spec.reference, differs ? ", " + *differs : std::string()));
    }
    for (size_t c = 0; c < chunks.size() && c < ref_ids_.size(); ++c) {
      if (ctx.Stopped()) return Failed("interrupted");
      const quality::PplChunk& ch = chunks[c];
      protocol::ScoreRequest req = ChunkScoreRequest(ctx, tokens, ch);
      req.ids = ref_ids_[c].get<std::vector<TokenIds>>();
      const auto t0 = std::chrono::steady_clock::now();
      auto resp = ctx.Call(req.ToJson());
      if (!resp) return resp.error();
      ctx.Done("kld", ch.n_ctx, SecondsSince(t0));
      json raw = RawFacts(std::move(*resp));
      raw.erase("logsumexp");
      raw["request"] = {{"chunk", c}, {"ref_cell_id", ref_cell_id_}, {"top_k", spec.top_k}};
      if (auto st = ctx.Keep("kld", static_cast<int>(c), false, raw); !st) return st;
      ChunkDone(ctx, "kld", c, chunks.size());
    }
    return {};
  }

  std::string text_, corpus_sha256_;  // the kld corpus, read once per run
  // The full-vocabulary mode's reference worker: the reference model, loaded once per run.
  struct ReferenceWorker {
    std::unique_ptr<worker::WorkerChannel> channel;
    int64_t n_vocab = 0;
    int64_t chunk_bos = -1;       // as ChunkBos(), for the reference model
    std::vector<int64_t> tokens;  // its tokens of the kld corpus
    std::string tokens_sha256;    // theirs
    std::string context_key;      // the init_context request its context was made with
    json facts;                   // stored with every cell it serves (test "kld_reference")
  } ref_;
  std::vector<json> ref_ids_;        // top-k: per chunk, the reference's top-k ids per position
  std::string ref_tokens_sha256_;    // the reference's tokens of the corpus
  std::vector<int64_t> ref_tokens_;  // the same tokens, when this run tokenized them
  int64_t ref_cell_id_ = 0;
};

}  // namespace

std::unique_ptr<Workload> NewKld() { return std::make_unique<Kld>(); }

}  // namespace pipette::workload
