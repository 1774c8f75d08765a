#include "pipette/workload/kld/derive.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "pipette/quality/kld.h"
#include "pipette/util/json_read.h"
#include "pipette/workload/stored.h"

namespace pipette::workload {
namespace {

using json_read::Ref;
using nlohmann::json;

// KL divergence, position by position: full-vocabulary samples carry each position's KL and the
// two models' facts ("kl", "ref_logprob", ...); top-k samples (mode topk, and every store before
// it) are reduced against the reference cell's stored top-k distribution, a lower bound.
void AddKldRows(const metrics::ResultRow& base, const std::vector<store::SampleRecord>& samples,
                const metrics::CellsById& by_id, std::vector<metrics::ResultRow>* rows) {
  std::vector<quality::KldPosition> positions;
  std::vector<double> chunk_means;
  int64_t ref_cell = 0;
  int64_t top_k = 0;
  bool full = false;
  std::string corpus_sha, reference;
  for (const auto& s : samples) {
    if (s.test != "kld") continue;
    const json request = s.raw.value("request", json::object());
    std::vector<quality::KldPosition> chunk;
    if (s.raw.contains("kl")) {
      full = true;
      reference = request.value("reference", "");
      corpus_sha = request.value("corpus_sha256", "");
      const json &kl = s.raw.at("kl"), &rl = s.raw.at("ref_logprob"), &tl = s.raw.at("logprob"),
                 &ra = s.raw.at("ref_argmax"), &ta = s.raw.at("argmax");
      const size_t n = std::min({kl.size(), rl.size(), tl.size(), ra.size(), ta.size()});
      for (size_t j = 0; j < n; ++j) {
        quality::KldPosition p;
        p.kl.kl = kl[j].get<double>();
        p.same_top1 = ra[j] == ta[j];
        p.ref_correct_lp = rl[j].get<double>();
        p.test_correct_lp = tl[j].get<double>();
        chunk.push_back(p);
      }
    } else {
      ref_cell = json_read::Int(request, "ref_cell_id").value_or(0);
      auto it = by_id.find(ref_cell);
      if (it == by_id.end()) continue;
      const store::SampleRecord* ref = nullptr;
      for (const auto& r : it->second->samples) {
        if (r.test == "kld_ref" && r.rep == s.rep) ref = &r;
      }
      if (!ref) continue;
      const json ref_request = ref->raw.value("request", json::object());
      corpus_sha = ref_request.value("corpus_sha256", "");
      top_k = json_read::Int(ref_request, "top_k").value_or(0);
      const json& top = Ref(ref->raw, "top_logprobs");
      const json& ids_lp = Ref(s.raw, "ids_logprob");
      const json& ref_tail = ref->raw.value("top_tail_logprob", json::array());
      const json& test_tail = s.raw.value("ids_tail_logprob", json::array());
      const json& argmax = Ref(s.raw, "argmax");
      const json& logprob = Ref(s.raw, "logprob");
      const json& ref_argmax = Ref(ref->raw, "argmax");
      const json& ref_logprob = Ref(ref->raw, "logprob");
      const size_t n = std::min({top.size(), ids_lp.size(), logprob.size(), argmax.size(),
                                 ref_argmax.size(), ref_logprob.size()});
      const bool exact_tails = ref_tail.size() >= n && test_tail.size() >= n;
      for (size_t j = 0; j < n; ++j) {
        const auto rl = top[j].get<std::vector<double>>();
        const auto tl = ids_lp[j].get<std::vector<double>>();
        quality::KldPosition p;
        p.kl = exact_tails ? quality::CoarseKlDivergence(rl, tl, ref_tail[j].get<double>(),
                                                         test_tail[j].get<double>())
                           : quality::CoarseKlDivergence(rl, tl);
        p.same_top1 = argmax[j] == ref_argmax[j];
        p.ref_correct_lp = ref_logprob[j].get<double>();
        p.test_correct_lp = logprob[j].get<double>();
        chunk.push_back(p);
      }
    }
    chunk_means.push_back(quality::SummarizeKld(chunk).mean);
    positions.insert(positions.end(), chunk.begin(), chunk.end());
  }
  if (positions.empty()) return;
  const quality::KldSummary k = quality::SummarizeKld(positions);
  auto add = [&](const std::string& metric, const std::string& unit, double v) {
    metrics::ResultRow r = base;
    r.test = "kld";
    r.metric = metric;
    r.unit = unit;
    r.value = v;
    r.dataset_sha256 = corpus_sha;
    // Which KL this is, in every report: the top-k figures are a lower bound of the full one.
    r.subset =
        full ? fmt::format("full vocabulary; reference {}", reference)
             : fmt::format(
                   "lower bound: top-{} + tail, mean reference tail mass {:.4f}; "
                   "reference cell {}",
                   top_k > 0 ? std::to_string(top_k) : std::string("k"), k.ref_tail_mean, ref_cell);
    if (metric == "kld_mean") {
      r.samples = chunk_means;
      r.summary = stats::Summarize(chunk_means);
    } else {
      r.samples = {v};
      r.summary = stats::Summarize(r.samples);
    }
    r.summary.n = size_t(k.n);
    r.summary.noisy = false;
    rows->push_back(std::move(r));
  };
  add("kld_mean", "nats", k.mean);
  add("kld_median", "nats", k.median);
  add("kld_p99", "nats", k.p99);
  add("kld_max", "nats", k.max);
  add("top1_agree", "fraction", k.top1_agree);
  add("rms_dp", "probability", k.rms_dp);
  add("ppl_ratio", "ratio", k.ppl_ratio);
  if (!full) add("ref_tail_mass", "probability", k.ref_tail_mean);
}

}  // namespace

Status DeriveKld(const metrics::ResultRow& base, const std::vector<store::SampleRecord>& samples,
                 const metrics::CellsById& by_id, std::vector<metrics::ResultRow>* rows) {
  return ReadStored("kld", [&] { AddKldRows(base, samples, by_id, rows); });
}

metrics::Headline KldHeadline() {
  return {
      .column = "kld mean / top1 agree",
      .order = 40,
      .shows = [](const metrics::ResultRow& r) { return r.test == "kld" && r.metric != "all"; },
      .makes_line = [](const metrics::ResultRow& r) { return r.metric == "kld_mean"; },
      .text =
          [](const std::vector<const metrics::ResultRow*>& rows) {
            const metrics::ResultRow* mean = metrics::LastWithMetric(rows, "kld_mean");
            const metrics::ResultRow* top1 = metrics::LastWithMetric(rows, "top1_agree");
            if (!mean || !top1) return std::string();
            std::string text = fmt::format("{:.6f} / {:.1f}%", mean->value, 100 * top1->value);
            // A top-k reference (it has a tail mass) gives a lower bound: always said, with
            // the mass it leaves in its tail, and what to do when that is large.
            if (const metrics::ResultRow* tail = metrics::LastWithMetric(rows, "ref_tail_mass")) {
              text =
                  fmt::format("≥ {} (top-k lower bound, tail {:.1f}%{})", text, 100 * tail->value,
                              tail->value > 0.05 ? ": raise top_k or use mode full" : "");
            }
            return text;
          }};
}

std::vector<metrics::FigureDef> KldFigures() {
  using metrics::FigureKind, metrics::Better, metrics::ValueKind, metrics::Statistic;
  constexpr auto kQ = FigureKind::kQuality;
  constexpr auto kItems = Statistic::kOverItems;
  return metrics::FigureList()
      .Add("kld", {"kld_mean"}, "nats", kQ, Better::kLower, ValueKind::kAmount, kItems)
      .SubsetNamesReference()
      // A top-k figure is a lower bound of the full one: never in the same column.
      .Vary([](const metrics::ResultRow& r) {
        return std::string(r.subset.starts_with("lower bound") ? "kld mean (top-k lower bound)"
                                                               : "kld mean");
      })
      .Score(metrics::ScoreGroup::kQuality, "kld_mean", Better::kLower)
      .Shows(metrics::Shown::kByQuant)
      .Add("kld", {"kld_median", "kld_p99", "kld_max"}, "nats", kQ, Better::kNotJudged,
           ValueKind::kAmount, kItems)
      .SubsetNamesReference()
      .Add("kld", {"top1_agree"}, "fraction", kQ, Better::kNotJudged, ValueKind::kProportion,
           kItems)
      .SubsetNamesReference()
      .Add("kld", {"rms_dp", "ref_tail_mass"}, "probability", kQ, Better::kNotJudged,
           ValueKind::kProportion, kItems)
      .SubsetNamesReference()
      .Add("kld", {"ppl_ratio"}, "ratio", kQ, Better::kNotJudged, ValueKind::kAmount, kItems)
      .SubsetNamesReference()
      .Take();
}

}  // namespace pipette::workload
