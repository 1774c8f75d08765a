#include "pipette/report/summary.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "pipette/report/display.h"
#include "pipette/util/strings.h"

namespace pipette::report {
namespace {

Column TextColumn(std::string name, Align align) {
  return {std::move(name), ColumnType::kText, "", align};
}

}  // namespace

Table SummaryTable(const std::vector<metrics::ResultRow>& rows,
                   const config::ParamRegistry& params) {
  Table t;
  t.name = "summary";
  std::map<std::string, std::set<std::string>> values;
  std::vector<std::string> order;
  const metrics::CellFacts* last = nullptr;
  for (const auto& r : rows) {
    // The rows of one cell share its facts, and follow one another: each cell's once.
    if (r.cell.get() == last) continue;
    last = r.cell.get();
    for (const auto& [k, v] : r.cell->params.items()) {
      if (!values.count(k)) order.push_back(k);
      values[k].insert(ParamDisplay(r, k, params));
    }
  }
  std::vector<std::string> param_cols;
  for (const auto& k : order) {
    const config::ParamDef* def = params.Find(k);
    if ((def && def->always_column) || values[k].size() > 1) param_cols.push_back(k);
  }
  std::map<int64_t, const metrics::ResultRow*> peak, ppl, mc;
  std::map<int64_t, std::map<std::string, const metrics::ResultRow*>> gen, kld;
  for (const auto& r : rows) {
    if (r.test == "memory" && r.metric == "peak_rss") peak[r.cell->cell_id] = &r;
    if (r.metric == "ppl") ppl[r.cell->cell_id] = &r;
    if (r.test == "mc" && r.metric == "acc" && r.subset.empty()) mc[r.cell->cell_id] = &r;
    const bool all_na = r.metric == "all";  // a phase not served: its own line, no column
    if (r.test == "gen" && r.subset.empty() && !all_na) gen[r.cell->cell_id][r.metric] = &r;
    if (r.test == "kld" && !all_na) kld[r.cell->cell_id][r.metric] = &r;
  }
  std::set<int64_t> runs;
  for (const auto& r : rows) runs.insert(r.cell->run_id);
  const bool show_run = runs.size() > 1;

  if (show_run) t.columns.push_back(TextColumn("run", Align::kRight));
  t.columns.push_back(TextColumn("model", Align::kLeft));
  t.columns.push_back(TextColumn("size", Align::kRight));
  t.columns.push_back(TextColumn("params", Align::kRight));
  t.columns.push_back(TextColumn("quant", Align::kLeft));
  t.columns.push_back(TextColumn("runtime", Align::kLeft));
  for (const auto& p : param_cols) t.columns.push_back(TextColumn(params.Column(p), Align::kRight));
  t.columns.push_back(TextColumn("test", Align::kRight));
  t.columns.push_back(TextColumn("result", Align::kRight));
  if (!ppl.empty()) t.columns.push_back(TextColumn("ppl", Align::kRight));
  if (!mc.empty()) t.columns.push_back(TextColumn("mc acc [95% CI]", Align::kRight));
  if (!gen.empty()) t.columns.push_back(TextColumn("gen format_ok / task_acc", Align::kRight));
  if (!kld.empty()) t.columns.push_back(TextColumn("kld mean / top1 agree", Align::kRight));
  t.columns.push_back(TextColumn("peak RSS", Align::kRight));

  // One line per cell and speed test; a cell with quality figures only gets one line too.
  std::set<int64_t> cells_with_speed, quality_line;
  for (const auto& r : rows) {
    if (metrics::IsHeadline(r)) cells_with_speed.insert(r.cell->cell_id);
  }
  for (const auto& r : rows) {
    // A cell without speed tests gets one line, on its first quality figure.
    const bool quality_only =
        !cells_with_speed.count(r.cell->cell_id) && !quality_line.count(r.cell->cell_id) &&
        (r.metric == "ppl" || ((r.test == "mc" || r.test == "gen") && r.subset.empty()) ||
         r.metric == "kld_mean");
    if (quality_only) quality_line.insert(r.cell->cell_id);
    // A phase the runtime does not serve: its own line, n/a with the reason.
    const bool na_line = r.metric == "all" && !r.na_reason.empty();
    if (!metrics::IsHeadline(r) && !quality_only && !na_line) continue;
    std::vector<Value> row;
    if (show_run) row.push_back(Text(std::to_string(r.cell->run_id)));
    row.push_back(Text(r.cell->model));
    row.push_back(Text(FormatBytes(double(r.cell->model_file_size))));
    row.push_back(Text(CountDisplay(r.cell->n_params)));
    row.push_back(Text(QuantDisplay(r)));
    row.push_back(Text(fmt::format("{} {}", r.cell->runtime, r.cell->runtime_version)));
    for (const auto& p : param_cols) row.push_back(Text(ParamDisplay(r, p, params)));
    const std::string test = quality_only ? "quality" : r.test;
    row.push_back(Text(
        r.cell->cell_status == "ok" ? test : fmt::format("{} ({})", test, r.cell->cell_status)));
    row.push_back(Text(quality_only ? "" : na_line ? "n/a: " + r.na_reason : FigureDisplay(r)));
    if (!ppl.empty()) {
      auto q = ppl.find(r.cell->cell_id);
      row.push_back(Text(q == ppl.end() ? ""
                                        : fmt::format("{:.4f} ± {:.4f}", q->second->value,
                                                      q->second->std_error.value_or(0))));
    }
    if (!mc.empty()) {
      auto q = mc.find(r.cell->cell_id);
      row.push_back(Text(q == mc.end()
                             ? ""
                             : fmt::format("{:.1f}% [{:.1f}, {:.1f}]", 100 * q->second->value,
                                           100 * q->second->ci_low.value_or(0),
                                           100 * q->second->ci_high.value_or(0))));
    }
    if (!gen.empty()) {
      auto q = gen.find(r.cell->cell_id);
      std::string text;
      if (q != gen.end() && q->second.count("format_ok") && q->second.count("task_acc")) {
        text = fmt::format("{:.1f}% / {:.1f}%", 100 * q->second.at("format_ok")->value,
                           100 * q->second.at("task_acc")->value);
      }
      row.push_back(Text(text));
    }
    if (!kld.empty()) {
      auto q = kld.find(r.cell->cell_id);
      std::string text;
      if (q != kld.end() && q->second.count("kld_mean") && q->second.count("top1_agree")) {
        text = fmt::format("{:.6f} / {:.1f}%", q->second.at("kld_mean")->value,
                           100 * q->second.at("top1_agree")->value);
        // A top-k reference (it has a tail mass) gives a lower bound: always said, with the
        // mass it leaves in its tail, and what to do when that is large.
        if (auto tail = q->second.find("ref_tail_mass"); tail != q->second.end()) {
          text = fmt::format("≥ {} (top-k lower bound, tail {:.1f}%{})", text,
                             100 * tail->second->value,
                             tail->second->value > 0.05 ? ": raise top_k or use mode full" : "");
        }
      }
      row.push_back(Text(text));
    }
    auto it = peak.find(r.cell->cell_id);
    row.push_back(Text(it == peak.end() || !it->second->na_reason.empty()
                           ? "n/a"
                           : FormatBytes(it->second->summary.median)));
    t.Add(std::move(row), !quality_only && !na_line && r.summary.noisy);
  }
  std::set<std::string> notes;
  for (const auto& r : rows) {
    if (const std::string n = RequantNote(r); !n.empty()) notes.insert(n);
  }
  t.footnotes.assign(notes.begin(), notes.end());
  return t;
}

std::vector<CellNote> IncompleteCells(const std::vector<store::CellRecord>& cells) {
  std::vector<CellNote> out;
  for (const auto& c : cells) {
    if (c.status == "ok" || c.status == "superseded") continue;
    out.push_back(
        {c.index + 1, c.status, c.error.empty() ? "(no reason recorded)" : c.error, c.key});
  }
  return out;
}

}  // namespace pipette::report
