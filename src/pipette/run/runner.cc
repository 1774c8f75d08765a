#include "pipette/run/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>

#include "pipette/build_info.h"
#include "pipette/protocol/ops.h"
#include "pipette/protocol/version.h"
#include "pipette/quality/datasets.h"
#include "pipette/quality/ppl.h"
#include "pipette/run/eta.h"
#include "pipette/run/kld_frames.h"
#include "pipette/run/prompt_text.h"
#include "pipette/run/runtime_params.h"
#include "pipette/runtime/ops.h"
#include "pipette/util/files.h"
#include "pipette/util/sha256.h"

namespace pipette::run {
namespace {

using config::TestKind;
using config::TestSpec;
using nlohmann::json;
using std::chrono::milliseconds;

// A request failure that ends the cell.
struct CellError {
  std::string message;
  bool worker_broken = false;
};

std::string KindName(TestKind k) {
  switch (k) {
    case TestKind::kPP:
      return "pp";
    case TestKind::kTG:
      return "tg";
    case TestKind::kTTFT:
      return "ttft";
  }
  return "?";
}

// SplitMix64: a fixed, portable generator (std::hash and std distributions differ between C++
// libraries, and every build must draw the same prompts).
uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Deterministic pseudo-random token ids: the same seed, salt and vocabulary size give the same
// prompt on every machine and build.
std::vector<int64_t> RandomTokens(uint64_t seed, const std::string& salt, int64_t n,
                                  int64_t n_vocab) {
  uint64_t state = seed;
  for (unsigned char ch : salt) state = (state ^ ch) * 0x100000001B3ull;  // FNV-1a style mix
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (auto& t : out) {
    // Modulo bias is below 1e-14 for any real vocabulary (n_vocab << 2^64).
    t = static_cast<int64_t>(SplitMix64(state) % static_cast<uint64_t>(n_vocab));
  }
  return out;
}

// Identifies a token sequence (the kld reference's tokens of its corpus).
std::string TokensSha256(const std::vector<int64_t>& tokens) {
  return Sha256Hex(json(tokens).dump());
}

// The raw facts of a response: everything but the envelope.
json RawFacts(json response) {
  response.erase("id");
  response.erase("ok");
  return response;
}

class Runner {
 public:
  Runner(const config::Experiment& ex, const std::vector<plan::Cell>& cells,
         const config::ParamRegistry& registry, RunnerDeps deps)
      : ex_(ex), cells_(cells), registry_(registry), deps_(std::move(deps)) {}

  Result<RunSummary> Run(int64_t environment_id) {
    environment_id_ = environment_id;
    if (deps_.resume) {
      summary_.run_id = deps_.resume->run_id;
      if (auto st = deps_.store->ResumeRun(summary_.run_id, deps_.resume->resumes_seen,
                                           deps_.controller, deps_.lock);
          !st) {
        return st.error();
      }
      summary_.cells_kept = static_cast<int>(deps_.resume->done.size());
      TakeReferences();
    } else {
      store::RunRecord run;
      run.name = ex_.name;
      run.experiment_path = ex_.path;
      run.config_hash = ex_.Hash();
      run.config_text = ex_.source_text;
      run.config_canonical = ex_.Resolved().dump();  // beside the hash, not in it
      run.pipette_version = kPipetteVersion;
      run.pipette_commit = kPipetteCommit;
      run.environment_id = environment_id;
      run.n_cells = static_cast<int64_t>(cells_.size());
      run.controller = deps_.controller;
      run.lock = deps_.lock;
      run.only = deps_.only;
      auto run_id = deps_.store->BeginRun(run);
      if (!run_id) return run_id.error();
      summary_.run_id = *run_id;
    }
    if (deps_.run_started) deps_.run_started(summary_.run_id);
    PlanEta();
    for (const plan::Cell& cell : cells_) {
      if (!ToRun(cell)) continue;
      if (Stopped()) {
        summary_.interrupted = true;
        break;
      }
      auto st = RunCell(cell);
      if (!st) {  // only store errors end the run; say so in the store if it still answers
        if (channel_) channel_->Shutdown(milliseconds(2000));
        ResetReference();
        summary_.status = "failed";
        (void)deps_.store->FinishRun(summary_.run_id, summary_.status);
        return st.error();
      }
    }
    if (channel_) channel_->Shutdown(milliseconds(3000));
    channel_.reset();
    ResetReference();
    summary_.status = summary_.interrupted ? "interrupted" : "done";
    if (auto st = deps_.store->FinishRun(summary_.run_id, summary_.status); !st) {
      return st.error();
    }
    return summary_;
  }

 private:
  bool Stopped() const { return deps_.stop && deps_.stop->load(); }

  // Without a resume every cell runs; with one, only those it names.
  bool ToRun(const plan::Cell& cell) const {
    if (!deps_.resume) return true;
    const auto& r = deps_.resume->to_run;
    return std::find(r.begin(), r.end(), cell.index) != r.end();
  }

  // A resumed run takes up the references its kept cells recorded.
  void TakeReferences() {
    const ResumePlan& r = *deps_.resume;
    if (r.kld) {
      kld_ref_ids_ = r.kld->top_ids;
      kld_ref_tokens_sha256_ = r.kld->tokens_sha256;
      kld_ref_cell_id_ = r.kld->cell_id;
    }
    if (r.divergence_reference_cell_id) gen_ref_cell_id_ = r.divergence_reference_cell_id;
  }

  // One phase of a cell, announced to the progress sink at its start and its end.
  template <class F>
  std::optional<CellError> Phase(const plan::Cell& cell, const std::string& name, F&& body) {
    if (deps_.progress) deps_.progress->PhaseStarted(cell, int(cells_.size()), name);
    const auto t0 = std::chrono::steady_clock::now();
    std::optional<CellError> e = body();
    NoteOtherPipettes();
    if (!e && deps_.progress) {
      deps_.progress->PhaseFinished(cell, int(cells_.size()), name, Seconds(t0),
                                    eta_.FractionDone(), eta_.SecondsLeft());
    }
    return e;
  }

  // Other Pipette workers seen on the machine during this cell: looked for at its start, at the
  // end of each phase and at its end.
  void NoteOtherPipettes() {
    if (!deps_.other_pipettes) return;
    for (const json& o : deps_.other_pipettes()) {
      if (std::find(others_.begin(), others_.end(), o) == others_.end()) others_.push_back(o);
    }
  }

  void PlanEta() {
    std::string last_load;
    for (const plan::Cell& cell : cells_) {
      if (!ToRun(cell)) continue;
      const std::string lk = cell.LoadKey(registry_);
      if (lk != last_load) eta_.Plan("load", 1);
      last_load = lk;
      const int reps = ex_.warmup + ex_.repetitions;
      for (const TestSpec& t : ex_.tests) eta_.Plan(KindName(t.kind), double(t.n) * reps);
      if (ex_.ppl) {
        // Until the corpus is tokenized, guess 4 bytes per token.
        std::error_code ec;
        const double tokens = double(std::filesystem::file_size(ex_.ppl->corpus, ec)) / 4.0;
        double chunks = std::floor(tokens / ex_.ppl->n_ctx);
        if (ex_.ppl->chunks > 0) chunks = std::min<double>(chunks, ex_.ppl->chunks);
        eta_.Plan("ppl", chunks * ex_.ppl->n_ctx);
      }
      if (ex_.kld) eta_.Plan("kld", double(std::max(ex_.kld->chunks, 1)) * ex_.kld->n_ctx);
      if (ex_.gen) {
        eta_.Plan("gen", ex_.gen->limit > 0 ? std::min<int64_t>(ex_.gen->limit, ex_.gen->n_items)
                                            : ex_.gen->n_items);
      }
      if (ex_.mc) {
        eta_.Plan("mc", ex_.mc->limit > 0 ? std::min<int64_t>(ex_.mc->limit, ex_.mc->n_items)
                                          : ex_.mc->n_items);
      }
    }
  }

  Status RunCell(const plan::Cell& cell) {
    store::CellRecord rec;
    rec.run_id = summary_.run_id;
    rec.index = cell.index;
    rec.key = cell.Key();
    rec.model_name = cell.model.name;
    rec.model_path = cell.model.path;
    rec.model_source = cell.model.source;
    rec.runtime = cell.runtime.name;
    for (const auto& [k, v] : cell.params) {
      if (const config::ParamDef* def = registry_.Find(k)) {
        rec.params[k] = config::ParamRegistry::ToJson(*def, v);
      }
    }
    rec.conditions = deps_.conditions ? deps_.conditions() : json::object();
    rec.environment_id = environment_id_;
    others_ = json::array();
    NoteOtherPipettes();
    if (!others_.empty()) rec.conditions["other_pipette"] = others_;
    if (!cell.model.provenance.is_null()) rec.model_info["provenance"] = cell.model.provenance;
    auto facts = cell.model.unavailable.empty() ? Facts(cell.model.path)
                                                : Result<ModelFacts>(Error{cell.model.unavailable});
    if (facts) {
      rec.model_sha256 = facts->sha256;
      rec.model_file_size = facts->file_size;
      rec.model_info["file"] = facts->info;
    }
    std::optional<int64_t> supersedes;
    if (deps_.resume) {
      if (auto it = deps_.resume->supersede.find(cell.index); it != deps_.resume->supersede.end()) {
        supersedes = it->second;
      }
    }
    auto id = deps_.store->BeginCell(rec, supersedes);
    if (!id) return id.error();
    rec.id = *id;

    std::optional<CellError> failure;
    if (!facts) failure = CellError{facts.error().message, false};
    if (!failure) {
      try {
        failure = Measure(cell, rec);
      } catch (const nlohmann::json::exception& e) {
        // A response with a missing or mistyped field: the worker broke the protocol.
        failure = CellError{fmt::format("a worker response could not be read: {}", e.what()), true};
      }
    }
    if (failure) {
      // Ctrl-C reaches the worker too; the cell it cut short is "interrupted", not "failed".
      rec.status = Stopped() ? "interrupted" : "failed";
      rec.error = failure->message;
      if (channel_) rec.stderr_tail = channel_->StderrTail();
      // A worker in an unknown state never serves the next cell.
      if (channel_) channel_->Shutdown(milliseconds(2000));
      channel_.reset();
      loaded_key_.clear();
      if (Stopped()) {
        summary_.interrupted = true;
      } else {
        ++summary_.cells_failed;
      }
    } else {
      rec.status = "ok";
      ++summary_.cells_ok;
    }
    // Another Pipette that started measuring during the cell is named too.
    NoteOtherPipettes();
    if (!others_.empty()) rec.conditions["other_pipette"] = others_;
    rec.finished_at = store::NowIso8601();
    if (auto st = deps_.store->UpdateCell(rec); !st) return st;
    if (deps_.progress) deps_.progress->CellFinished(cell, int(cells_.size()), rec);
    return {};
  }

  Result<ModelFacts> Facts(const std::string& path) {
    auto it = facts_.find(path);
    if (it != facts_.end()) return it->second;
    if (!deps_.model_facts) return ModelFacts{};
    auto f = deps_.model_facts(path);
    if (f) facts_[path] = *f;
    return f;
  }

  milliseconds Timeout() const { return milliseconds(static_cast<int64_t>(ex_.timeout_s * 1000)); }

  // Sends one request (to the cell's worker unless another is named); a failure becomes the
  // cell's error.
  std::optional<CellError> Call(json req, json* response, worker::WorkerChannel* to = nullptr) {
    auto r = (to ? to : channel_.get())->Call(std::move(req), Timeout());
    if (!r.ok()) return CellError{r.error().message, r.error().broken};
    *response = std::move(*r);
    return std::nullopt;
  }

  std::optional<CellError> Keep(const store::CellRecord& rec, const std::string& test, int rep,
                                bool warmup, json raw) {
    store::SampleRecord s{0, rec.id, test, rep, warmup, std::move(raw)};
    if (auto id = deps_.store->AddSample(s); !id) return CellError{id.error().message, false};
    return std::nullopt;
  }

  std::optional<CellError> EnsureWorker(const plan::Cell& cell) {
    if (channel_ && channel_->Alive() && worker_path_ == cell.runtime.worker) return std::nullopt;
    if (channel_) channel_->Shutdown(milliseconds(2000));
    channel_.reset();
    loaded_key_.clear();
    auto ch = deps_.device->StartWorker({cell.runtime.worker});
    if (!ch) return CellError{ch.error().message, true};
    channel_ = std::move(*ch);
    worker_path_ = cell.runtime.worker;
    json hello;
    if (auto e = Call({{"op", protocol::op::kHello}}, &hello)) return e;
    const int proto = hello.value("protocol", 0);
    if (proto != protocol::kProtocolVersion) {
      return CellError{fmt::format("worker {} speaks protocol version {}; this pipette speaks {}",
                                   cell.runtime.worker, proto, protocol::kProtocolVersion),
                       true};
    }
    hello_ = RawFacts(hello);
    // The ops it serves, kept while it runs: a workload whose op it lacks is n/a, not failed.
    auto typed = protocol::HelloResponse::FromJson(hello);
    ops_ = typed ? runtime::SupportedOps::FromHello(*typed) : runtime::SupportedOps();
    return std::nullopt;
  }

  std::optional<CellError> Measure(const plan::Cell& cell, store::CellRecord& rec) {
    // A cell that loads another model gets a fresh worker: the pages of the model before it
    // would otherwise still count in this cell's peak memory (they are freed only by the load).
    if (channel_ && cell.LoadKey(registry_) != loaded_key_) {
      channel_->Shutdown(milliseconds(2000));
      channel_.reset();
      loaded_key_.clear();
    }
    if (auto e = EnsureWorker(cell)) return e;
    rec.worker_pid = channel_->Pid();
    rec.runtime_version = hello_.value("runtime_version", "");
    rec.runtime_build = hello_.value("runtime_build", json::object());
    if (deps_.progress) deps_.progress->CellStarted(cell, int(cells_.size()), rec.worker_pid);
    // Record the worker now, so a crash mid-cell still leaves the pid and runtime in the store.
    if (auto st = deps_.store->UpdateCell(rec); !st) return CellError{st.error().message, false};

    // The cell's peak memory starts here, before any model load or context it needs.
    json reset;
    if (auto e = Call({{"op", protocol::op::kResetPeakMemory}}, &reset)) return e;

    const std::string load_key = cell.LoadKey(registry_);
    if (load_key != loaded_key_) {
      auto failed = Phase(cell, "load model", [&]() -> std::optional<CellError> {
        json resp;
        const auto t0 = std::chrono::steady_clock::now();
        const json req = LoadRequest(cell, registry_);
        if (auto e = Call(req, &resp)) return e;
        eta_.Done("load", 1, Seconds(t0));
        json raw = RawFacts(resp);
        raw["cold"] = false;  // the page cache is not dropped (needs root, disturbs the machine)
        raw["request"] = RequestFacts(req);
        if (auto e = Keep(rec, "load", 0, false, raw)) return e;
        model_runtime_info_ = resp.value("model", json::object());
        load_applied_ = AppliedLoadParams(resp, registry_);
        loaded_key_ = load_key;
        load_cell_id_ = rec.id;
        return std::nullopt;
      });
      if (failed) return failed;
    }
    rec.load_cell_id = load_cell_id_;
    rec.model_info["runtime"] = model_runtime_info_;
    const int64_t n_vocab = model_runtime_info_.value("n_vocab", int64_t{0});
    if (n_vocab <= 0) return CellError{"the worker did not report the vocabulary size", false};

    json ctx;
    const json ctx_req = ContextRequest(cell, registry_);
    if (auto e = Call(ctx_req, &ctx)) return e;
    json ctx_raw = RawFacts(ctx);
    ctx_raw["request"] = RequestFacts(ctx_req);
    ctx_raw["params_set"] = rec.params;  // what the experiment set; the rest is the runtime's
    if (auto e = Keep(rec, "context", 0, false, ctx_raw)) return e;
    // The runtime may clamp the batch to the context; tests use what it applied.
    applied_n_batch_ = ctx.value("n_batch", int64_t{0});
    if (applied_n_batch_ <= 0) return CellError{"the worker did not report n_batch", false};
    // The stored parameters must be the ones that ran: a planned value the runtime changed fails
    // the cell; one the experiment left to the runtime is stored as the runtime applied it.
    for (const char* k : {"n_ctx", "n_batch", "n_ubatch"}) {
      if (cell.HasParam(k) && ctx.contains(k) && ctx[k] != cell.IntParam(k)) {
        return CellError{fmt::format("the runtime applied {} {} instead of the planned {}", k,
                                     ctx[k].dump(), cell.IntParam(k)),
                         false};
      }
    }
    rec.params = AppliedParams(rec.params, load_applied_, ctx, registry_);
    if (auto st = deps_.store->UpdateCell(rec); !st) return CellError{st.error().message, false};

    for (const TestSpec& t : ex_.tests) {
      if (auto e = Phase(cell, t.name, [&] { return RunTest(cell, rec, t, n_vocab); })) return e;
    }
    if (ex_.ppl) {
      if (auto e = Phase(cell, "ppl", [&] { return RunPpl(cell, rec); })) return e;
    }
    if (ex_.kld) {
      if (auto e = Phase(cell, "kld", [&] { return RunKld(cell, rec); })) return e;
    }
    if (ex_.mc) {
      if (auto e = Phase(cell, "mc", [&] { return RunMc(cell, rec); })) return e;
    }
    if (ex_.gen) {
      if (auto e = Phase(cell, "gen", [&] { return RunGen(cell, rec); })) return e;
    }

    json mem;
    if (auto e = Call({{"op", protocol::op::kMemory}}, &mem)) return e;
    json raw = RawFacts(mem);
    raw["reset"] = RawFacts(reset);
    if (auto e = Keep(rec, "memory", 0, false, raw)) return e;
    return std::nullopt;
  }

  std::optional<CellError> RunTest(const plan::Cell& cell, const store::CellRecord& rec,
                                   const TestSpec& t, int64_t n_vocab) {
    const int64_t n_batch = applied_n_batch_;
    const int64_t depth = cell.IntParam("depth");
    json req;
    json req_facts;  // what the stored sample says was asked (token arrays left out)
    switch (t.kind) {
      case TestKind::kPP:
        req = {{"op", protocol::op::kPp},
               {"tokens", RandomTokens(ex_.seed, t.name, t.n, n_vocab)},
               {"n_batch", n_batch}};
        req_facts = {{"n_tokens", t.n}, {"n_batch", n_batch}, {"seed", ex_.seed}};
        break;
      case TestKind::kTG: {
        const int64_t bos = model_runtime_info_.value("bos", int64_t{-1});
        const int64_t first =
            bos >= 0 && bos < n_vocab ? bos : RandomTokens(ex_.seed, "first", 1, n_vocab)[0];
        req = {{"op", protocol::op::kTg},
               {"prompt", RandomTokens(ex_.seed, fmt::format("depth{}", depth), depth, n_vocab)},
               {"first_token", first},
               {"n_gen", t.n},
               {"n_batch", n_batch}};
        req_facts = {{"n_gen", t.n}, {"depth", depth}, {"first_token", first}, {"seed", ex_.seed}};
        break;
      }
      case TestKind::kTTFT: {
        std::string text;
        int64_t n_tokens = 0;
        if (auto e = PromptOfTokens(t.n, &text, &n_tokens)) return e;
        req = {{"op", protocol::op::kTtft},
               {"text", text},
               {"n_batch", n_batch},
               {"add_special", true}};
        req_facts = {
            {"n_prompt_tokens_target", t.n}, {"n_batch", n_batch}, {"text_chars", text.size()}};
        break;
      }
    }
    const int total = ex_.warmup + ex_.repetitions;
    for (int rep = 0; rep < total; ++rep) {
      if (Stopped()) return CellError{"interrupted", false};
      const bool warmup = rep < ex_.warmup;
      json resp;
      const auto t0 = std::chrono::steady_clock::now();
      if (auto e = Call(req, &resp)) return e;
      eta_.Done(KindName(t.kind), t.n, Seconds(t0));
      json raw = RawFacts(resp);
      raw["request"] = req_facts;
      if (auto e = Keep(rec, t.name, rep, warmup, raw)) return e;
      if (deps_.progress) {
        deps_.progress->Step(cell, int(cells_.size()),
                             fmt::format("{} {} {}/{}", t.name, warmup ? "warm-up" : "rep",
                                         warmup ? rep + 1 : rep - ex_.warmup + 1,
                                         warmup ? ex_.warmup : ex_.repetitions),
                             eta_.FractionDone(), eta_.SecondsLeft());
      }
    }
    return std::nullopt;
  }

  // The BOS id a chunk starts with (its first token replaced, as llama-perplexity does) when the
  // loaded model's tokenizer adds BOS; -1 when it does not.
  int64_t ChunkBos() const {
    if (!model_runtime_info_.value("add_bos", false)) return -1;
    return model_runtime_info_.value("bos", int64_t{-1});
  }

  // One `score` request over a chunk of the tokenized corpus (ppl and kld), scoring its second
  // half; `extra` adds request fields (top_k, ids).
  std::optional<CellError> ScoreChunk(const std::vector<int64_t>& tokens,
                                      const quality::PplChunk& ch, json extra, json* resp) {
    json req = {{"op", protocol::op::kScore},
                {"tokens", quality::ChunkTokens(tokens, ch, ChunkBos())},
                {"from", ch.from},
                {"n_batch", applied_n_batch_}};
    req.update(extra);
    return Call(std::move(req), resp);
  }

  // What a chunk's sample says was asked.
  json ChunkFacts(size_t c, const quality::PplChunk& ch) const {
    return {{"chunk", c},
            {"begin", ch.begin},
            {"n_ctx", ch.n_ctx},
            {"from", ch.from},
            {"bos_first", ChunkBos() >= 0}};
  }

  void ChunkDone(const plan::Cell& cell, const char* phase, size_t c, size_t n) {
    if (!deps_.progress) return;
    deps_.progress->Step(cell, int(cells_.size()), fmt::format("{} chunk {}/{}", phase, c + 1, n),
                         eta_.FractionDone(), eta_.SecondsLeft());
  }

  // Perplexity: tokenize the corpus with the model's tokenizer, score each chunk's second half.
  std::optional<CellError> RunPpl(const plan::Cell& cell, const store::CellRecord& rec) {
    const config::PplSpec& spec = *ex_.ppl;
    if (corpus_text_.empty()) {
      auto text = ReadFileToString(spec.corpus);
      if (!text || text->empty()) return CellError{"cannot read the corpus " + spec.corpus, false};
      corpus_text_ = std::move(*text);
      corpus_sha256_ = Sha256Hex(corpus_text_);
    }
    auto it = corpus_tokens_.find(loaded_key_);
    if (it == corpus_tokens_.end()) {
      json resp;
      if (auto e = Call({{"op", protocol::op::kTokenize},
                         {"text", std::string(quality::CorpusText(corpus_text_))},
                         {"add_special", true}},
                        &resp)) {
        return e;
      }
      it = corpus_tokens_.emplace(loaded_key_, resp["tokens"].get<std::vector<int64_t>>()).first;
    }
    const std::vector<int64_t>& tokens = it->second;
    const auto chunks =
        quality::PplChunks(static_cast<int64_t>(tokens.size()), spec.n_ctx, spec.chunks);
    json corpus = {{"path", spec.corpus},
                   {"sha256", corpus_sha256_},
                   {"n_chars", quality::CountCodePoints(quality::CorpusText(corpus_text_))},
                   {"n_tokens", tokens.size()},
                   {"n_ctx", spec.n_ctx},
                   {"n_chunks", chunks.size()}};
    if (auto e = Keep(rec, "ppl_corpus", 0, false, corpus)) return e;
    if (chunks.empty()) {
      return CellError{fmt::format("the corpus {} has {} tokens, fewer than one chunk of n_ctx {}",
                                   spec.corpus, tokens.size(), spec.n_ctx),
                       false};
    }
    for (size_t c = 0; c < chunks.size(); ++c) {
      if (Stopped()) return CellError{"interrupted", false};
      const quality::PplChunk& ch = chunks[c];
      json resp;
      const auto t0 = std::chrono::steady_clock::now();
      if (auto e = ScoreChunk(tokens, ch, json::object(), &resp)) return e;
      eta_.Done("ppl", ch.n_ctx, Seconds(t0));
      json raw = RawFacts(resp);
      raw["request"] = ChunkFacts(c, ch);
      if (auto e = Keep(rec, "ppl", static_cast<int>(c), false, raw)) return e;
      ChunkDone(cell, "ppl", c, chunks.size());
    }
    return std::nullopt;
  }

  // KL divergence against the reference model, on the chunks and positions of ppl
  // (docs/metrics.md "kld"): over the full vocabulary by default, else (mode topk) against the
  // reference's stored top-k distribution.
  std::optional<CellError> RunKld(const plan::Cell& cell, const store::CellRecord& rec) {
    const config::KldSpec& spec = *ex_.kld;
    if (kld_text_.empty()) {
      auto text = ReadFileToString(spec.corpus);
      if (!text || text->empty()) return CellError{"cannot read the corpus " + spec.corpus, false};
      kld_text_ = std::move(*text);
      kld_corpus_sha256_ = Sha256Hex(kld_text_);
    }
    std::vector<int64_t> tokens;
    if (auto e = Tokenize(std::string(quality::CorpusText(kld_text_)), &tokens)) return e;
    const auto chunks =
        quality::PplChunks(static_cast<int64_t>(tokens.size()), spec.n_ctx, spec.chunks);
    if (chunks.empty()) return CellError{"the kld corpus is shorter than one chunk", false};
    if (spec.mode == config::KldMode::kFull) return RunKldFull(cell, rec, tokens, chunks);
    return RunKldTopK(cell, rec, tokens, chunks);
  }

  // Full vocabulary: the reference worker and the cell's worker score each chunk with
  // `logits: true`; the frames are compared position by position as they arrive, and only the
  // per-position facts are stored (one `kld` sample per chunk).
  std::optional<CellError> RunKldFull(const plan::Cell& cell, const store::CellRecord& rec,
                                      const std::vector<int64_t>& tokens,
                                      const std::vector<quality::PplChunk>& chunks) {
    const config::KldSpec& spec = *ex_.kld;
    if (auto e = EnsureReference(cell)) return e;
    if (TokensSha256(tokens) != ref_.tokens_sha256) {
      return CellError{fmt::format("the model's tokenizer differs from the kld reference '{}' "
                                   "on the corpus: KL divergence needs the same tokenizer",
                                   spec.reference),
                       false};
    }
    const int64_t n_vocab = model_runtime_info_.value("n_vocab", int64_t{0});
    if (n_vocab != ref_.n_vocab) {
      return CellError{fmt::format("the model's vocabulary has {} ids, the kld reference '{}' {}: "
                                   "KL divergence needs the same vocabulary",
                                   n_vocab, spec.reference, ref_.n_vocab),
                       false};
    }
    if (auto e = Keep(rec, "kld_reference", 0, false, ref_.facts)) return e;
    for (size_t c = 0; c < chunks.size(); ++c) {
      if (Stopped()) return CellError{"interrupted", false};
      const quality::PplChunk& ch = chunks[c];
      const std::vector<int64_t> chunk_tokens = quality::ChunkTokens(tokens, ch, ChunkBos());
      if (chunk_tokens != quality::ChunkTokens(tokens, ch, ref_.chunk_bos)) {
        return CellError{fmt::format("the model starts chunks with BOS {} and the kld reference "
                                     "'{}' with {}: the chunks would differ",
                                     ChunkBos(), spec.reference, ref_.chunk_bos),
                         false};
      }
      const json req = {{"op", protocol::op::kScore},
                        {"tokens", chunk_tokens},
                        {"from", ch.from},
                        {"n_batch", applied_n_batch_},
                        {"logits", true}};
      const auto t0 = std::chrono::steady_clock::now();
      json ref_head, head;
      if (auto e = Call(req, &ref_head, ref_.channel.get())) return ReferenceFailed(e->message);
      if (auto e = Call(req, &head)) {
        ResetReference();  // left with frames no one reads
        return e;
      }
      const int64_t n_frames = static_cast<int64_t>(chunk_tokens.size()) - 1 - ch.from;
      for (const json* h : {&ref_head, &head}) {
        if (h->value("frames", int64_t{-1}) != n_frames ||
            h->value("n_vocab", int64_t{-1}) != n_vocab) {
          ResetReference();
          return CellError{fmt::format("a worker announced {} frames of {} logits for {} positions "
                                       "of a {}-id vocabulary",
                                       h->value("frames", json()).dump(),
                                       h->value("n_vocab", json()).dump(), n_frames, n_vocab),
                           true};
        }
      }
      KldChunkFacts facts;
      if (auto f =
              ReduceKldFrames(*ref_.channel, *channel_, ch.from, n_frames,
                              static_cast<size_t>(n_vocab), chunk_tokens, t0 + Timeout(), &facts)) {
        // Both workers are left mid-frames: neither serves another request.
        if (f->reference) return ReferenceFailed(f->error.message);
        ResetReference();
        return CellError{f->error.message, true};
      }
      eta_.Done("kld", ch.n_ctx, Seconds(t0));
      json raw = {{"mode", "full"},
                  {"n_tokens", chunk_tokens.size()},
                  {"from", ch.from},
                  {"n_vocab", n_vocab},
                  {"t_start_ns", head.value("t_start_ns", int64_t{0})},
                  {"t_end_ns", facts.t_end_ns},
                  {"ref_t_start_ns", ref_head.value("t_start_ns", int64_t{0})},
                  {"ref_t_end_ns", facts.ref_t_end_ns},
                  {"kl", facts.kl},
                  {"ref_logprob", facts.ref_logprob},
                  {"logprob", facts.logprob},
                  {"ref_argmax", facts.ref_argmax},
                  {"ref_max_logprob", facts.ref_max_logprob},
                  {"argmax", facts.argmax}};
      raw["request"] = ChunkFacts(c, ch);
      raw["request"].update({{"reference", spec.reference},
                             {"corpus_sha256", kld_corpus_sha256_},
                             {"tokens_sha256", ref_.tokens_sha256}});
      if (auto e = Keep(rec, "kld", static_cast<int>(c), false, raw)) return e;
      ChunkDone(cell, "kld", c, chunks.size());
    }
    return std::nullopt;
  }

  // The first cell of the reference model in the plan: whose model, load parameters and cache
  // types the reference worker uses.
  const plan::Cell* ReferenceCell() const {
    for (const plan::Cell& c : cells_) {
      if (c.model.name == ex_.kld->reference) return &c;
    }
    return nullptr;
  }

  // The reference worker, started (hello, load_model, the corpus tokenized) once per run and
  // again after a failure, with a context of this cell's n_ctx, n_batch, n_ubatch and threads
  // (made anew when they change) and the reference cell's cache types and flash attention.
  std::optional<CellError> EnsureReference(const plan::Cell& cell) {
    const plan::Cell* rc = ReferenceCell();
    if (!rc) return CellError{"the kld reference is not a model of this run", false};
    if (!rc->model.unavailable.empty()) {
      return CellError{fmt::format("the kld reference '{}' is unavailable: {}", rc->model.name,
                                   rc->model.unavailable),
                       false};
    }
    if (!ref_.channel || !ref_.channel->Alive()) {
      ResetReference();
      if (deps_.progress) {
        deps_.progress->Step(cell, int(cells_.size()),
                             fmt::format("kld: starting the reference worker ({})", rc->model.name),
                             eta_.FractionDone(), eta_.SecondsLeft());
      }
      auto ch = deps_.device->StartWorker({rc->runtime.worker});
      if (!ch) return ReferenceFailed(ch.error().message);
      ref_.channel = std::move(*ch);
      json hello, load, tok;
      if (auto e = Call({{"op", protocol::op::kHello}}, &hello, ref_.channel.get())) {
        return ReferenceFailed(e->message);
      }
      if (hello.value("protocol", 0) != protocol::kProtocolVersion) {
        return ReferenceFailed(fmt::format("it speaks protocol version {}; this pipette speaks {}",
                                           hello.value("protocol", 0), protocol::kProtocolVersion));
      }
      if (auto e = Call(LoadRequest(*rc, registry_), &load, ref_.channel.get())) {
        return ReferenceFailed(e->message);
      }
      const json model = load.value("model", json::object());
      ref_.n_vocab = model.value("n_vocab", int64_t{0});
      ref_.chunk_bos = model.value("add_bos", false) ? model.value("bos", int64_t{-1}) : -1;
      if (auto e = Call({{"op", protocol::op::kTokenize},
                         {"text", std::string(quality::CorpusText(kld_text_))},
                         {"add_special", true}},
                        &tok, ref_.channel.get())) {
        return ReferenceFailed(e->message);
      }
      ref_.tokens_sha256 = TokensSha256(tok["tokens"].get<std::vector<int64_t>>());
      ref_.facts = {{"model", rc->model.name},
                    {"path", rc->model.path},
                    {"pid", ref_.channel->Pid()},
                    {"runtime_version", hello.value("runtime_version", "")},
                    {"load", RawFacts(load)}};
      ref_.facts["load"].erase("model");
      ref_.facts["n_vocab"] = ref_.n_vocab;
      ref_.context_key.clear();
    }
    // The cell's context sizes and threads; the reference cell's cache types and flash attention
    // (the reference distribution stays one across cells), each sent only where set.
    json ctx_req = ContextRequest(cell, registry_);
    for (const char* k : {"type_k", "type_v", "flash_attn"}) {
      ctx_req.erase(k);
      if (rc->HasParam(k)) ctx_req[k] = rc->Param(k);
    }
    if (ctx_req.dump() != ref_.context_key) {
      json ctx;
      if (auto e = Call(ctx_req, &ctx, ref_.channel.get())) return ReferenceFailed(e->message);
      if (ctx.value("n_batch", int64_t{0}) != applied_n_batch_) {
        return ReferenceFailed(
            fmt::format("its runtime applied n_batch {} where the cell's "
                        "applied {}",
                        ctx.value("n_batch", int64_t{0}), applied_n_batch_));
      }
      ref_.context_key = ctx_req.dump();
      ref_.facts["context"] = RawFacts(ctx);
    }
    return std::nullopt;
  }

  // The reference worker failed: the kld phase (so the cell) fails saying so, with the worker's
  // last standard error; a fresh reference worker serves the next cell.
  std::optional<CellError> ReferenceFailed(const std::string& why) {
    std::string tail = ref_.channel ? ref_.channel->StderrTail() : "";
    if (tail.size() > 1000) tail = tail.substr(tail.size() - 1000);
    ResetReference();
    return CellError{
        fmt::format("the kld reference worker ({}) failed: {}{}", ex_.kld->reference, why,
                    tail.empty() ? "" : "; its standard error ended with: " + tail),
        true};
  }

  void ResetReference() {
    if (ref_.channel) ref_.channel->Shutdown(milliseconds(2000));
    ref_ = {};
  }

  // Top-k mode: the first cell of the reference model records the reference distribution (top-k
  // log-probabilities per scored position); every cell, that one included, then scores the same
  // positions asking for the log-probabilities of the reference's top-k ids.
  std::optional<CellError> RunKldTopK(const plan::Cell& cell, const store::CellRecord& rec,
                                      const std::vector<int64_t>& tokens,
                                      const std::vector<quality::PplChunk>& chunks) {
    const config::KldSpec& spec = *ex_.kld;
    if (kld_ref_ids_.empty() && cell.model.name == spec.reference) {
      // Kept only once every chunk is recorded: a reference cut short serves no one.
      std::vector<json> ref_ids;
      for (size_t c = 0; c < chunks.size(); ++c) {
        const quality::PplChunk& ch = chunks[c];
        json resp;
        if (auto e = ScoreChunk(tokens, ch, {{"top_k", spec.top_k}}, &resp)) return e;
        ref_ids.push_back(resp["top_ids"]);
        json raw = RawFacts(resp);
        raw["request"] = {{"chunk", c},
                          {"begin", ch.begin},
                          {"n_ctx", ch.n_ctx},
                          {"top_k", spec.top_k},
                          {"corpus_sha256", kld_corpus_sha256_},
                          {"tokens_sha256", TokensSha256(tokens)}};
        if (auto e = Keep(rec, "kld_ref", static_cast<int>(c), false, raw)) return e;
      }
      kld_ref_ids_ = std::move(ref_ids);
      kld_ref_tokens_sha256_ = TokensSha256(tokens);
      kld_ref_cell_id_ = rec.id;
    }
    if (kld_ref_ids_.empty()) {
      return CellError{fmt::format("no reference distribution: the first cell of the kld "
                                   "reference '{}' did not record one",
                                   spec.reference),
                       false};
    }
    if (TokensSha256(tokens) != kld_ref_tokens_sha256_) {
      return CellError{fmt::format("the model's tokenizer differs from the kld reference '{}' "
                                   "on the corpus: KL divergence needs the same tokenizer",
                                   spec.reference),
                       false};
    }
    for (size_t c = 0; c < chunks.size() && c < kld_ref_ids_.size(); ++c) {
      if (Stopped()) return CellError{"interrupted", false};
      const quality::PplChunk& ch = chunks[c];
      json resp;
      const auto t0 = std::chrono::steady_clock::now();
      if (auto e = ScoreChunk(tokens, ch, {{"ids", kld_ref_ids_[c]}}, &resp)) return e;
      eta_.Done("kld", ch.n_ctx, Seconds(t0));
      json raw = RawFacts(resp);
      raw.erase("logsumexp");
      raw["request"] = {{"chunk", c}, {"ref_cell_id", kld_ref_cell_id_}, {"top_k", spec.top_k}};
      if (auto e = Keep(rec, "kld", static_cast<int>(c), false, raw)) return e;
      ChunkDone(cell, "kld", c, chunks.size());
    }
    return std::nullopt;
  }

  std::optional<CellError> Tokenize(const std::string& text, std::vector<int64_t>* tokens,
                                    bool add_special = true) {
    json resp;
    if (auto e =
            Call({{"op", protocol::op::kTokenize}, {"text", text}, {"add_special", add_special}},
                 &resp)) {
      return e;
    }
    *tokens = resp["tokens"].get<std::vector<int64_t>>();
    return std::nullopt;
  }

  // Multiple choice: each choice's continuation tokens scored given the question (one `score`
  // request per choice); the raw log-probabilities are stored per item, the figures derived.
  std::optional<CellError> RunMc(const plan::Cell& cell, const store::CellRecord& rec) {
    const config::McSpec& spec = *ex_.mc;
    if (!mc_) {
      auto ds = quality::LoadMcDataset(spec.dataset);
      if (!ds) return CellError{ds.error().message, false};
      mc_ = std::move(*ds);
    }
    const size_t n =
        spec.limit > 0 ? std::min<size_t>(spec.limit, mc_->items.size()) : mc_->items.size();
    json info = {
        {"path", mc_->path},
        {"sha256", mc_->sha256},
        {"n_items", n},
        {"prompt_format", config::McPrompt("{question}") + config::McContinuation("{choice}")}};
    if (auto e = Keep(rec, "mc_dataset", 0, false, info)) return e;
    for (size_t i = 0; i < n; ++i) {
      if (Stopped()) return CellError{"interrupted", false};
      const quality::McItem& item = mc_->items[i];
      const std::string prompt = config::McPrompt(item.question);
      std::vector<int64_t> context;
      if (auto e = Tokenize(prompt, &context)) return e;
      json choices = json::array();
      const auto t0 = std::chrono::steady_clock::now();
      for (const std::string& choice : item.choices) {
        // The continuation is what tokens(prompt + choice) has beyond its common prefix with
        // tokens(prompt): a token merged across the boundary (or an end token the tokenizer
        // appends to the prompt alone) belongs to the continuation, so it is scored, not lost.
        std::vector<int64_t> full;
        if (auto e = Tokenize(prompt + config::McContinuation(choice), &full)) return e;
        size_t common = 0;
        while (common < context.size() && common < full.size() && context[common] == full[common]) {
          ++common;
        }
        if (common == 0 || common >= full.size()) {
          return CellError{fmt::format("{}:{}: cannot separate choice '{}' from the prompt in "
                                       "the model's tokens",
                                       mc_->path, item.line, choice),
                           false};
        }
        json resp;
        if (auto e = Call({{"op", protocol::op::kScore},
                           {"tokens", full},
                           {"from", common - 1},
                           {"n_batch", applied_n_batch_}},
                          &resp)) {
          return e;
        }
        choices.push_back({{"bytes", choice.size()},
                           {"n_tokens", full.size() - common},
                           {"logprob", resp["logprob"]}});
      }
      eta_.Done("mc", 1, Seconds(t0));
      // Tokenizer density (tok_per_kchar) of the item's own text, without scaffolding.
      std::vector<int64_t> own;
      if (auto e = Tokenize(item.question, &own, /*add_special=*/false)) return e;
      json raw = {{"id", item.id},
                  {"text_tokens", own.size()},
                  {"text_chars", quality::CountCodePoints(item.question)},
                  {"answer", item.answer},
                  {"language", item.language},
                  {"task_type", item.task_type},
                  {"n_prompt_tokens", context.size()},
                  {"choices", choices}};
      if (auto e = Keep(rec, "mc", static_cast<int>(i), false, raw)) return e;
      if (deps_.progress) {
        deps_.progress->Step(cell, int(cells_.size()), fmt::format("mc item {}/{}", i + 1, n),
                             eta_.FractionDone(), eta_.SecondsLeft());
      }
    }
    return std::nullopt;
  }

  // Generation: each item's prompt through the model's chat template, greedy; the raw output and
  // the item's checkers are stored together, the verdicts derived.
  std::optional<CellError> RunGen(const plan::Cell& cell, const store::CellRecord& rec) {
    const config::GenSpec& spec = *ex_.gen;
    if (!gen_) {
      auto ds = quality::LoadGenDataset(spec.dataset);
      if (!ds) return CellError{ds.error().message, false};
      gen_ = std::move(*ds);
    }
    const size_t n =
        spec.limit > 0 ? std::min<size_t>(spec.limit, gen_->items.size()) : gen_->items.size();
    std::string template_sha256;
    for (size_t i = 0; i < n; ++i) {
      if (Stopped()) return CellError{"interrupted", false};
      const quality::GenItem& item = gen_->items[i];
      json messages = json::array();
      if (!item.system.empty()) messages.push_back({{"role", "system"}, {"content", item.system}});
      messages.push_back({{"role", "user"}, {"content", item.prompt}});
      json request = {{"op", protocol::op::kChat},
                      {"messages", messages},
                      {"max_tokens", item.max_tokens},
                      {"n_batch", applied_n_batch_}};
      if (!spec.template_options.empty()) request["template_options"] = spec.template_options;
      json resp;
      const auto t0 = std::chrono::steady_clock::now();
      if (auto e = Call(request, &resp)) return e;
      eta_.Done("gen", 1, Seconds(t0));
      if (i == 0) {
        // How every prompt of the cell was made: the template (hashed; it is the model file's),
        // where it came from, the options it was given and the thinking switch it saw.
        template_sha256 = Sha256Hex(resp.value("template", ""));
        json info = {{"path", gen_->path},
                     {"sha256", gen_->sha256},
                     {"n_items", n},
                     {"template_sha256", template_sha256},
                     {"template_origin", resp.value("template_origin", "")},
                     {"template_options", spec.template_options},
                     {"enable_thinking", resp.value("enable_thinking", json())}};
        if (ex_.divergence_reference) {
          // The first cell of the reference model that completes gen is the one every later
          // cell is compared with; a reference cell compares with itself.
          const bool candidate_ref =
              !gen_ref_cell_id_ && cell.model.name == *ex_.divergence_reference;
          info["divergence_reference_cell_id"] = candidate_ref ? rec.id : gen_ref_cell_id_;
        }
        if (auto e = Keep(rec, "gen_dataset", 0, false, info)) return e;
      }
      json checkers = json::array();
      for (const auto& c : item.checkers) {
        checkers.push_back({{"type", c.type}, {"role", c.role}, {"spec", c.spec}});
      }
      json raw = RawFacts(resp);
      raw.erase("template");  // one copy, hashed, in gen_dataset
      raw.erase("template_origin");
      raw.erase("template_options");
      raw.erase("enable_thinking");
      raw["prompt_sha256"] = Sha256Hex(resp.value("prompt", ""));  // the rendered prompt's
      std::vector<int64_t> own;
      if (auto e = Tokenize(item.prompt, &own, /*add_special=*/false)) return e;
      raw["text_tokens"] = own.size();
      raw["text_chars"] = quality::CountCodePoints(item.prompt);
      raw["item"] = {{"id", item.id},
                     {"language", item.language},
                     {"task_type", item.task_type},
                     {"checkers", checkers}};
      if (auto e = Keep(rec, "gen", static_cast<int>(i), false, raw)) return e;
      if (deps_.progress) {
        deps_.progress->Step(cell, int(cells_.size()), fmt::format("gen item {}/{}", i + 1, n),
                             eta_.FractionDone(), eta_.SecondsLeft());
      }
    }
    if (ex_.divergence_reference && !gen_ref_cell_id_ &&
        cell.model.name == *ex_.divergence_reference) {
      gen_ref_cell_id_ = rec.id;
    }
    return std::nullopt;
  }

  // The shortest prefix of the prose passage that the model's tokenizer turns into at least
  // `n` tokens (special tokens included), found by bisection over word boundaries.
  std::optional<CellError> PromptOfTokens(int64_t n, std::string* text, int64_t* n_tokens) {
    const std::string key = loaded_key_ + "|" + std::to_string(n);
    if (auto it = prompts_.find(key); it != prompts_.end()) {
      *text = it->second.first;
      *n_tokens = it->second.second;
      return std::nullopt;
    }
    const std::string prose = ProseText(static_cast<size_t>(n) * 8 + 64);
    std::vector<size_t> cuts;  // word ends
    for (size_t i = 1; i < prose.size(); ++i) {
      if (prose[i] == ' ') cuts.push_back(i);
    }
    auto count = [&](size_t cut, int64_t* out) -> std::optional<CellError> {
      json resp;
      if (auto e = Call({{"op", protocol::op::kTokenize},
                         {"text", prose.substr(0, cut)},
                         {"add_special", true}},
                        &resp)) {
        return e;
      }
      *out = static_cast<int64_t>(resp["tokens"].size());
      return std::nullopt;
    };
    size_t lo = 0, hi = cuts.size() - 1;
    int64_t c = 0;
    if (auto e = count(cuts[hi], &c)) return e;
    if (c < n) return CellError{fmt::format("could not build a {}-token prompt", n), false};
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      if (auto e = count(cuts[mid], &c)) return e;
      if (c >= n) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    *text = prose.substr(0, cuts[lo]);
    if (auto e = count(cuts[lo], n_tokens)) return e;
    prompts_[key] = {*text, *n_tokens};
    return std::nullopt;
  }

  static double Seconds(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  const config::Experiment& ex_;
  const std::vector<plan::Cell>& cells_;
  const config::ParamRegistry& registry_;
  RunnerDeps deps_;
  RunSummary summary_;
  EtaEstimator eta_;
  std::unique_ptr<worker::WorkerChannel> channel_;
  std::string worker_path_;
  json hello_;
  runtime::SupportedOps ops_;  // what the cell's worker serves (its hello)
  std::string loaded_key_;
  int64_t load_cell_id_ = 0;
  json model_runtime_info_;
  json load_applied_ = json::object();  // the load-time parameters the loaded model ran with
  int64_t applied_n_batch_ = 0;
  std::map<std::string, ModelFacts> facts_;
  std::map<std::string, std::pair<std::string, int64_t>> prompts_;
  std::string corpus_text_, corpus_sha256_;
  std::optional<quality::McDataset> mc_;
  std::optional<quality::GenDataset> gen_;
  std::string kld_text_, kld_corpus_sha256_;
  // The full-vocabulary mode's reference worker: the reference model, loaded once per run.
  struct ReferenceWorker {
    std::unique_ptr<worker::WorkerChannel> channel;
    int64_t n_vocab = 0;
    int64_t chunk_bos = -1;     // as ChunkBos(), for the reference model
    std::string tokens_sha256;  // its tokens of the kld corpus
    std::string context_key;    // the init_context request its context was made with
    json facts;                 // stored with every cell it serves (test "kld_reference")
  } ref_;
  std::vector<json> kld_ref_ids_;      // per chunk: the reference's top-k ids per position
  std::string kld_ref_tokens_sha256_;  // the reference's tokens of the corpus
  int64_t kld_ref_cell_id_ = 0;
  int64_t environment_id_ = 0;
  json others_ = json::array();  // other Pipette workers seen during the current cell
  int64_t gen_ref_cell_id_ = 0;
  std::map<std::string, std::vector<int64_t>> corpus_tokens_;  // by model load
};

}  // namespace

Result<RunSummary> RunExperiment(const config::Experiment& ex, const std::vector<plan::Cell>& cells,
                                 const config::ParamRegistry& registry, int64_t environment_id,
                                 RunnerDeps deps) {
  Runner runner(ex, cells, registry, std::move(deps));
  return runner.Run(environment_id);
}

}  // namespace pipette::run
