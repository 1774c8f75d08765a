#include "pipette/workload/mc/mc.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "pipette/estimate/work.h"
#include "pipette/protocol/quality_ops.h"
#include "pipette/quality/datasets.h"
#include "pipette/quality/ppl.h"
#include "pipette/workload/mc/derive.h"
#include "pipette/workload/mc/spec.h"
#include "pipette/workload/timing.h"

namespace pipette::workload {
namespace {

using nlohmann::json;

class Mc : public Workload {
 public:
  std::string Name() const override { return "mc"; }

  std::vector<Phase> Phases(const config::Experiment& ex) const override {
    if (!McSpecOf(ex)) return {};
    return {{"mc", {protocol::op::kTokenize, protocol::op::kScore}}};
  }

  // A byte-level tokenizer never makes more tokens than bytes (+ special tokens): the longest
  // item's bytes bound its tokens.
  int64_t ContextNeed(const config::Experiment& ex, int64_t) const override {
    const McSpec* spec = McSpecOf(ex);
    return spec ? spec->max_bytes + 8 : 0;
  }

  std::string ContextNeedWhat(const config::Experiment& ex, int64_t) const override {
    const McSpec* spec = McSpecOf(ex);
    if (!spec) return "";
    return fmt::format("the mc item at {}:{}: {} bytes of question and choice", spec->dataset,
                       spec->max_line, spec->max_bytes);
  }

  void PlanWork(const config::Experiment& ex, const plan::Cell& cell,
                std::vector<estimate::Work>* out) const override {
    const McSpec* spec = McSpecOf(ex);
    if (!spec) return;
    out->push_back({cell.Key(), "mc", "mc", double(estimate::Items(spec->limit, spec->n_items))});
  }

  // Per item.
  std::optional<estimate::Measured> Timed(const store::SampleRecord& s) const override {
    if (s.test != "mc") return std::nullopt;
    return ItemTimed(s.raw, "mc");
  }

  metrics::Headlines Headlines() const override { return {McHeadline()}; }

  // The report's per-item table reads the samples themselves.
  bool RowsCacheable(const std::vector<store::SampleRecord>& samples) const override {
    return std::none_of(samples.begin(), samples.end(),
                        [](const store::SampleRecord& s) { return s.test == "mc"; });
  }

  Status Derive(const metrics::ResultRow& base, const metrics::CellSamples& cell,
                const metrics::CellsById& by_id, const store::EnvironmentRecord&,
                std::vector<metrics::ResultRow>* rows) const override {
    (void)by_id;
    return DeriveMc(base, cell.samples, rows);
  }

  RunStatus Run(Context& ctx, size_t) override {
    const McSpec& spec = *McSpecOf(ctx.Experiment());
    if (!mc_) {
      auto ds = quality::LoadMcDataset(spec.dataset);
      if (!ds) return Failed(ds.error().message);
      mc_ = std::move(*ds);
    }
    const size_t n =
        spec.limit > 0 ? std::min<size_t>(spec.limit, mc_->items.size()) : mc_->items.size();
    json info = {{"path", mc_->path},
                 {"sha256", mc_->sha256},
                 {"n_items", n},
                 {"prompt_format", McPrompt("{question}") + McContinuation("{choice}")}};
    if (auto st = ctx.Keep("mc_dataset", 0, false, info); !st) return st;
    for (size_t i = 0; i < n; ++i) {
      if (ctx.Stopped()) return Failed("interrupted");
      const quality::McItem& item = mc_->items[i];
      const std::string prompt = McPrompt(item.question);
      auto context = Tokenize(ctx, prompt);
      if (!context) return context.error();
      json choices = json::array();
      int64_t t_start_ns = 0, t_end_ns = 0;  // the worker's clock: first and last choice scored
      const auto t0 = std::chrono::steady_clock::now();
      for (const std::string& choice : item.choices) {
        // The continuation is what tokens(prompt + choice) has beyond its common prefix with
        // tokens(prompt): a token merged across the boundary (or an end token the tokenizer
        // appends to the prompt alone) belongs to the continuation, so it is scored, not lost.
        auto full = Tokenize(ctx, prompt + McContinuation(choice));
        if (!full) return full.error();
        size_t common = 0;
        while (common < context->size() && common < full->size() &&
               (*context)[common] == (*full)[common]) {
          ++common;
        }
        if (common == 0 || common >= full->size()) {
          return Failed(
              fmt::format("{}:{}: cannot separate choice '{}' from the prompt in "
                          "the model's tokens",
                          mc_->path, item.line, choice));
        }
        protocol::ScoreRequest req;
        req.tokens.assign(full->begin(), full->end());
        req.from = static_cast<int64_t>(common - 1);
        req.n_batch = ctx.NBatch();
        auto resp = ctx.Call(req.ToJson());
        if (!resp) return resp.error();
        auto scored = protocol::ScoreResponse::FromJson(*resp);
        if (!scored) return Broken(scored.error().message);
        if (choices.empty()) t_start_ns = scored->t_start_ns;
        t_end_ns = scored->t_end_ns;
        choices.push_back({{"bytes", choice.size()},
                           {"n_tokens", full->size() - common},
                           {"logprob", scored->logprob}});
      }
      ctx.Done("mc", 1, SecondsSince(t0));
      // Tokenizer density (tok_per_kchar) of the item's own text, without scaffolding.
      auto own = Tokenize(ctx, item.question, /*add_special=*/false);
      if (!own) return own.error();
      json raw = {{"id", item.id},
                  {"text_tokens", own->size()},
                  {"text_chars", quality::CountCodePoints(item.question)},
                  {"answer", item.answer},
                  {"language", item.language},
                  {"task_type", item.task_type},
                  {"n_prompt_tokens", context->size()},
                  {"t_start_ns", t_start_ns},
                  {"t_end_ns", t_end_ns},
                  {"choices", choices}};
      if (auto st = ctx.Keep("mc", static_cast<int>(i), false, raw); !st) return st;
      ctx.Step(fmt::format("mc item {}/{}", i + 1, n));
    }
    return {};
  }

 private:
  std::optional<quality::McDataset> mc_;  // read once per run
};

}  // namespace

std::unique_ptr<Workload> NewMc() { return std::make_unique<Mc>(); }

}  // namespace pipette::workload
