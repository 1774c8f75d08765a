#include "pipette/workload/gen/derive.h"

#include <fmt/format.h>

#include <map>

#include "pipette/quality/checkers.h"
#include "pipette/util/json_read.h"
#include "pipette/workload/proportions.h"
#include "pipette/workload/stored.h"

namespace pipette::workload {
namespace {

using json_read::Ref;
using nlohmann::json;

// Generation: every item's output judged by its checkers (quality/checkers.h).
void AddGenRows(const metrics::ResultRow& base, const std::vector<store::SampleRecord>& samples,
                std::vector<metrics::ResultRow>* rows) {
  const json* info = nullptr;
  std::vector<Proportion> props;
  int64_t served_items = 0, exhausted = 0, failed = 0;
  for (const auto& s : samples) {
    if (s.test == "gen_dataset") info = &s.raw;
    if (s.test != "gen") continue;
    const json& item = Ref(s.raw, "item");
    quality::GenItem gi;
    gi.id = item.value("id", "");
    for (const json& c : Ref(item, "checkers")) {
      gi.checkers.push_back({c.value("type", ""), c.value("role", ""), c.value("spec", json())});
    }
    quality::Verdict v = quality::Judge(gi, s.raw.value("text", ""));
    // An endpoint's item (its reply says whether thinking ate the answer, or why it failed).
    if (s.raw.contains("thinking_exhausted") || s.raw.contains("request_failed")) ++served_items;
    if (s.raw.contains("thinking_exhausted")) {
      // A thinking mode that spent the whole budget answered nothing: never a success, whatever
      // a checker would make of an empty answer.
      if (Ref(s.raw, "thinking_exhausted") == true) {
        ++exhausted;
        v.format_ok = v.task_ok = false;
      }
    }
    // An endpoint's request that stalled, was cut or malformed: a failed item, never a success.
    if (s.raw.contains("request_failed")) {
      ++failed;
      v.format_ok = v.task_ok = false;
    }
    props.push_back({item.value("language", ""),
                     item.value("task_type", ""),
                     {{"format_ok", v.format_ok}, {"task_acc", v.task_ok}}});
  }
  if (!info) return;
  const size_t first = rows->size();
  AddProportionRows(base, "gen", *info, props, {"format_ok", "task_acc"}, rows);
  if (served_items > 0) {  // an endpoint's items say whether a thinking mode ate the answer
    metrics::ResultRow r = base;
    r.test = "gen";
    r.metric = "thinking_exhausted";
    r.unit = "items";
    r.samples = {double(exhausted)};
    r.summary = stats::Summarize(r.samples);
    r.value = r.summary.median;
    rows->push_back(r);
    r.metric = "failed_requests";  // items whose request did not complete
    r.samples = {double(failed)};
    r.summary = stats::Summarize(r.samples);
    r.value = r.summary.median;
    rows->push_back(std::move(r));
  }
  AddDensityRows(base, "gen", *info, samples, rows);
  // How the prompts were made, as the cell recorded it (absent from stores before it was).
  if (info->contains("template_sha256")) {
    json chat_template = {{"sha256", info->value("template_sha256", "")},
                          {"origin", info->value("template_origin", json())},
                          {"options", info->value("template_options", json::object())},
                          {"enable_thinking", info->value("enable_thinking", json())}};
    for (size_t i = first; i < rows->size(); ++i) (*rows)[i].chat_template = chat_template;
  }
}

// Conversion consistency: this cell's greedy gen outputs against the reference cell's, token by
// token: the share of identical outputs, and where the differing ones first differ.
void AddDivergenceRows(const metrics::ResultRow& base,
                       const std::vector<store::SampleRecord>& samples,
                       const metrics::CellsById& by_id, std::vector<metrics::ResultRow>* rows) {
  int64_t ref_id = 0;
  for (const auto& s : samples) {
    if (s.test == "gen_dataset")
      ref_id = json_read::Int(s.raw, "divergence_reference_cell_id").value_or(0);
  }
  auto it = by_id.find(ref_id);
  if (ref_id == 0 || it == by_id.end()) return;
  if (it->second->cell.status != "ok" && it->second->cell.id != base.cell->cell_id) return;
  std::map<int, const json*> ref_tokens;
  for (const auto& s : it->second->samples) {
    if (s.test == "gen") ref_tokens[s.rep] = &Ref(s.raw, "tokens");
  }
  std::vector<double> identical, first_diff;
  for (const auto& s : samples) {
    if (s.test != "gen") continue;
    auto r = ref_tokens.find(s.rep);
    if (r == ref_tokens.end()) continue;
    const json& a = Ref(s.raw, "tokens");
    const json& b = *r->second;
    size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    const bool same = i == a.size() && i == b.size();
    identical.push_back(same ? 1.0 : 0.0);
    if (!same) first_diff.push_back(double(i));
  }
  if (identical.empty()) return;
  metrics::ResultRow r = base;
  r.test = "divergence";
  r.subset = fmt::format("reference cell {}", ref_id);
  metrics::ResultRow share = r;
  share.metric = "identical";
  share.unit = "fraction";
  int64_t k = 0;
  for (double v : identical) k += v > 0;
  share.value = double(k) / double(identical.size());
  const stats::Interval ci = stats::Wilson(k, int64_t(identical.size()));
  share.ci_low = ci.low;
  share.ci_high = ci.high;
  share.samples = identical;
  share.summary.n = identical.size();
  share.summary.median = share.summary.mean = share.summary.min = share.summary.max = share.value;
  rows->push_back(std::move(share));
  metrics::ResultRow diff = r;
  diff.metric = "first_diff_index";
  diff.unit = "tokens";
  diff.samples = first_diff;  // one per differing output
  diff.summary = stats::Summarize(first_diff);
  diff.summary.noisy = false;
  if (first_diff.empty()) {
    diff.na_reason = "every output is identical to the reference's";
  } else {
    diff.value = diff.summary.median;
  }
  rows->push_back(std::move(diff));
}

}  // namespace

Status DeriveGen(const metrics::ResultRow& base, const metrics::CellSamples& cell,
                 const metrics::CellsById& by_id, std::vector<metrics::ResultRow>* rows) {
  return ReadStored("gen", [&] {
    AddGenRows(base, cell.samples, rows);
    AddDivergenceRows(base, cell.samples, by_id, rows);
  });
}

metrics::Headline GenHeadline() {
  auto all_items = [](const metrics::ResultRow& r) { return r.test == "gen" && r.subset.empty(); };
  return {.column = "gen format_ok / task_acc",
          .order = 30,
          // A phase not served (metric "all"): its own n/a line, no figure.
          .shows = [=](const metrics::ResultRow& r) { return all_items(r) && r.metric != "all"; },
          .makes_line = all_items,
          .text =
              [](const std::vector<const metrics::ResultRow*>& rows) {
                const metrics::ResultRow* format_ok = metrics::LastWithMetric(rows, "format_ok");
                const metrics::ResultRow* task_acc = metrics::LastWithMetric(rows, "task_acc");
                if (!format_ok || !task_acc) return std::string();
                return fmt::format("{:.1f}% / {:.1f}%", 100 * format_ok->value,
                                   100 * task_acc->value);
              }};
}

std::vector<metrics::FigureDef> GenFigures() {
  using metrics::FigureKind, metrics::Better, metrics::ValueKind, metrics::Statistic;
  constexpr auto kQ = FigureKind::kQuality;
  constexpr auto kItems = Statistic::kOverItems;
  return metrics::FigureList()
      .Add("gen", {"format_ok", "task_acc"}, "fraction", kQ, Better::kHigher,
           ValueKind::kProportion, kItems)
      .Score(metrics::ScoreGroup::kQuality, "gen_<metric>", Better::kHigher)
      .Vary([](const metrics::ResultRow& r) {
        return r.metric == "task_acc" ? std::string("gen task_acc") : std::string();
      })
      .Add("gen", {"thinking_exhausted"}, "items", kQ, Better::kNotJudged, ValueKind::kAmount,
           kItems)
      .Add("gen", {"failed_requests"}, "items", kQ, Better::kNotJudged, ValueKind::kAmount, kItems)
      .CountsFailures()
      .Add("gen", {"tok_per_kchar"}, "tokens/kchar", kQ, Better::kNotJudged, ValueKind::kAmount,
           kItems)
      .Take();
}

std::vector<metrics::FigureDef> DivergenceFigures() {
  using metrics::FigureKind, metrics::Better, metrics::ValueKind, metrics::Statistic;
  return metrics::FigureList()
      .Add("divergence", {"identical"}, "fraction", FigureKind::kQuality, Better::kNotJudged,
           ValueKind::kProportion, Statistic::kOverItems)
      .SubsetNamesReference()
      .Add("divergence", {"first_diff_index"}, "tokens", FigureKind::kQuality, Better::kNotJudged,
           ValueKind::kAmount, Statistic::kOverItems)
      .SubsetNamesReference()
      .Take();
}

}  // namespace pipette::workload
