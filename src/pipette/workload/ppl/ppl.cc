#include "pipette/workload/ppl/ppl.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "pipette/estimate/work.h"
#include "pipette/util/files.h"
#include "pipette/util/sha256.h"
#include "pipette/util/utf8.h"
#include "pipette/workload/chunks.h"
#include "pipette/workload/ppl/derive.h"
#include "pipette/workload/ppl/spec.h"
#include "pipette/workload/timing.h"

namespace pipette::workload {
namespace {

using nlohmann::json;

class Ppl : public Workload {
 public:
  std::string Name() const override { return "ppl"; }

  std::vector<Phase> Phases(const config::Experiment& ex) const override {
    if (!PplSpecOf(ex)) return {};
    return {{"ppl", {protocol::op::kTokenize, protocol::op::kScore}}};
  }

  int64_t ContextNeed(const config::Experiment& ex, int64_t) const override {
    const PplSpec* spec = PplSpecOf(ex);
    return spec ? spec->n_ctx : 0;
  }

  std::string ContextNeedWhat(const config::Experiment& ex, int64_t) const override {
    const PplSpec* spec = PplSpecOf(ex);
    return spec ? fmt::format("ppl's chunks of n_ctx {} ({}:{})", spec->n_ctx, ex.path, spec->line)
                : "";
  }

  void PlanWork(const config::Experiment& ex, const plan::Cell& cell,
                std::vector<estimate::Work>* out) const override {
    const PplSpec* spec = PplSpecOf(ex);
    if (!spec) return;
    const double chunks = double(estimate::CorpusChunks(spec->corpus, spec->n_ctx, spec->chunks));
    out->push_back({cell.Key(), "ppl", "ppl", chunks, double(spec->n_ctx)});
  }

  // A scored chunk: per token of the chunk (its request names its length).
  std::optional<estimate::Measured> Timed(const store::SampleRecord& s) const override {
    if (s.test != "ppl") return std::nullopt;
    return ChunkTimed(s.raw, "ppl");
  }

  metrics::Headlines Headlines() const override { return {PplHeadline()}; }

  Status Derive(const metrics::ResultRow& base, const metrics::CellSamples& cell,
                const metrics::CellsById& by_id, const store::EnvironmentRecord&,
                std::vector<metrics::ResultRow>* rows) const override {
    (void)by_id;
    return DerivePpl(base, cell.samples, rows);
  }

  RunStatus Run(Context& ctx, size_t) override {
    const PplSpec& spec = *PplSpecOf(ctx.Experiment());
    if (corpus_text_.empty()) {
      auto text = ReadFileToString(spec.corpus);
      if (!text || text->empty()) return Failed("cannot read the corpus " + spec.corpus);
      // Checked when the experiment was resolved; a file changed since must not reach a JSON
      // request (which takes only UTF-8) either.
      if (auto bad = FirstInvalidUtf8(*text)) {
        return Failed(NotUtf8Error(spec.corpus, *text, *bad).message);
      }
      corpus_text_ = std::move(*text);
      corpus_sha256_ = Sha256Hex(corpus_text_);
    }
    auto it = corpus_tokens_.find(ctx.LoadKey());
    if (it == corpus_tokens_.end()) {
      auto tokens = Tokenize(ctx, std::string(quality::CorpusText(corpus_text_)));
      if (!tokens) return tokens.error();
      it = corpus_tokens_.emplace(ctx.LoadKey(), std::move(*tokens)).first;
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
    if (auto st = ctx.Keep("ppl_corpus", 0, false, corpus); !st) return st;
    if (chunks.empty()) {
      return Failed(fmt::format("the corpus {} has {} tokens, fewer than one chunk of n_ctx {}",
                                spec.corpus, tokens.size(), spec.n_ctx));
    }
    for (size_t c = 0; c < chunks.size(); ++c) {
      if (ctx.Stopped()) return Failed("interrupted");
      const quality::PplChunk& ch = chunks[c];
      const auto t0 = std::chrono::steady_clock::now();
      auto resp = ctx.Call(ChunkScoreRequest(ctx, tokens, ch).ToJson());
      if (!resp) return resp.error();
      ctx.Done("ppl", ch.n_ctx, SecondsSince(t0));
      json raw = RawFacts(std::move(*resp));
      raw["request"] = ChunkFacts(ctx, c, ch);
      if (auto st = ctx.Keep("ppl", static_cast<int>(c), false, raw); !st) return st;
      ChunkDone(ctx, "ppl", c, chunks.size());
    }
    return {};
  }

 private:
  std::string corpus_text_, corpus_sha256_;                    // read once per run
  std::map<std::string, std::vector<int64_t>> corpus_tokens_;  // by model load
};

}  // namespace

std::unique_ptr<Workload> NewPpl() { return std::make_unique<Ppl>(); }

}  // namespace pipette::workload
