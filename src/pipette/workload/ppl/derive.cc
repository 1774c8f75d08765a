#include "pipette/workload/ppl/derive.h"

#include <fmt/format.h>

#include "pipette/quality/ppl.h"
#include "pipette/util/json_read.h"
#include "pipette/workload/stored.h"

namespace pipette::workload {
namespace {

using nlohmann::json;

// ppl over every scored token of the corpus; the per-chunk figures become the samples.
void AddPplRows(const metrics::ResultRow& base, const std::vector<store::SampleRecord>& samples,
                std::vector<metrics::ResultRow>* rows) {
  const json* corpus = nullptr;
  std::vector<double> all, per_chunk;
  for (const auto& s : samples) {
    if (s.test == "ppl_corpus") corpus = &s.raw;
    if (s.test != "ppl") continue;
    const auto lp = s.raw.value("logprob", std::vector<double>{});
    all.insert(all.end(), lp.begin(), lp.end());
    per_chunk.push_back(quality::PplFromLogprobs(lp).ppl);
  }
  if (!corpus) return;
  metrics::ResultRow r = base;
  r.test = "ppl";
  r.dataset = corpus->value("path", "");
  r.dataset_sha256 = corpus->value("sha256", "");
  if (!all.empty()) {
    const quality::PplFigure f = quality::PplFromLogprobs(all);
    metrics::ResultRow p = r;
    p.metric = "ppl";
    p.samples = per_chunk;
    p.summary = stats::Summarize(per_chunk);
    p.value = f.ppl;
    p.std_error = f.std_error;
    p.summary.noisy = false;  // chunks differ in content: their spread is not measurement noise
    rows->push_back(std::move(p));
  }
  // The corpus's density: none where its counts cannot be read (another type, a number past
  // int64) or it has no characters.
  const std::optional<int64_t> n_tokens = json_read::Int(*corpus, "n_tokens");
  const std::optional<int64_t> n_chars = json_read::Int(*corpus, "n_chars");
  if (!n_tokens || !n_chars || *n_tokens < 0 || *n_chars <= 0) return;
  metrics::ResultRow t = r;
  t.metric = "tok_per_kchar";
  t.unit = "tokens/kchar";
  t.value = quality::TokensPerKchar(double(*n_tokens), double(*n_chars));
  t.samples = {t.value};
  t.summary = stats::Summarize(t.samples);
  rows->push_back(std::move(t));
}

}  // namespace

Status DerivePpl(const metrics::ResultRow& base, const std::vector<store::SampleRecord>& samples,
                 std::vector<metrics::ResultRow>* rows) {
  return ReadStored("ppl", [&] { AddPplRows(base, samples, rows); });
}

metrics::Headline PplHeadline() {
  return {.column = "ppl",
          .order = 10,
          .shows = [](const metrics::ResultRow& r) { return r.metric == "ppl"; },
          .makes_line = [](const metrics::ResultRow& r) { return r.metric == "ppl"; },
          .text =
              [](const std::vector<const metrics::ResultRow*>& rows) {
                const metrics::ResultRow* r = rows.back();
                return fmt::format("{:.4f} ± {:.4f}", r->value, r->std_error.value_or(0));
              }};
}

std::vector<metrics::FigureDef> PplFigures() {
  using metrics::FigureKind, metrics::Better, metrics::ValueKind, metrics::Statistic;
  using metrics::ScoreGroup;
  return metrics::FigureList()
      .Add("ppl", {"ppl"}, "", FigureKind::kQuality, Better::kLower, ValueKind::kPerplexity,
           Statistic::kGeoMeanOverItems)
      .Score(ScoreGroup::kQuality, "ppl", Better::kLower, /*same_tokenizer=*/true)
      .Shows(metrics::Shown::kByQuant)
      .Vary("ppl")
      .Add("ppl", {"tok_per_kchar"}, "tokens/kchar", FigureKind::kQuality, Better::kNotJudged,
           ValueKind::kAmount, Statistic::kOverItems)
      .TokenizerDensity()
      .Take();
}

std::optional<double> CorpusTokensPerKchar(const std::vector<metrics::ResultRow>& rows,
                                           size_t first) {
  std::optional<double> density;
  for (size_t i = first; i < rows.size(); ++i) {
    const metrics::ResultRow& r = rows[i];
    if (r.test == "ppl" && r.metric == "tok_per_kchar" && r.na_reason.empty() && r.value > 0) {
      density = r.value;
    }
  }
  return density;
}

}  // namespace pipette::workload
