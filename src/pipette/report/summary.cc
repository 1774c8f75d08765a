#include "pipette/report/summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
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
                   const runtime::ParamRegistry& params, const metrics::FigureCatalogue& figures) {
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
    const runtime::ParamDef* def = params.Find(k);
    if ((def && def->always_column) || values[k].size() > 1) param_cols.push_back(k);
  }
  // The workloads' columns, in their order, each with the rows of every cell it shows.
  std::vector<const metrics::Headline*> quality;
  for (const metrics::Headline& h : figures.headlines()) quality.push_back(&h);
  std::stable_sort(quality.begin(), quality.end(),
                   [](auto* a, auto* b) { return a->order < b->order; });
  std::vector<std::map<int64_t, std::vector<const metrics::ResultRow*>>> shown(quality.size());
  std::map<int64_t, const metrics::ResultRow*> peak;
  for (const auto& r : rows) {
    if (figures.Shows(r, metrics::Shown::kPeakMemory)) peak[r.cell->cell_id] = &r;
    for (size_t q = 0; q < quality.size(); ++q) {
      if (quality[q]->shows(r)) shown[q][r.cell->cell_id].push_back(&r);
    }
  }
  std::set<int64_t> runs;
  for (const auto& r : rows) runs.insert(r.cell->run_id);
  const bool show_run = runs.size() > 1;
  // The device column when the rows are of more than one device, or of an emulated one.
  std::set<std::string> devices;
  bool emulated = false, tiered = false;
  for (const auto& r : rows) {
    devices.insert(r.cell->device);
    emulated = emulated || r.cell->emulated;
    tiered = tiered || r.cell->emulated_tier;
  }
  const bool show_device = devices.size() > 1 || emulated || tiered;

  if (show_run) t.columns.push_back(TextColumn("run", Align::kRight));
  t.columns.push_back(TextColumn("model", Align::kLeft));
  t.columns.push_back(TextColumn("size", Align::kRight));
  t.columns.push_back(TextColumn("params", Align::kRight));
  t.columns.push_back(TextColumn("quant", Align::kLeft));
  t.columns.push_back(TextColumn("runtime", Align::kLeft));
  if (show_device) t.columns.push_back(TextColumn("device", Align::kLeft));
  for (const auto& p : param_cols) t.columns.push_back(TextColumn(params.Column(p), Align::kRight));
  t.columns.push_back(TextColumn("test", Align::kRight));
  t.columns.push_back(TextColumn("result", Align::kRight));
  for (size_t q = 0; q < quality.size(); ++q) {
    if (!shown[q].empty()) t.columns.push_back(TextColumn(quality[q]->column, Align::kRight));
  }
  t.columns.push_back(TextColumn("peak RSS", Align::kRight));

  // The time to write 1000 characters beside each tg test's t/s, where the cell has it.
  std::map<std::pair<int64_t, std::string>, const metrics::ResultRow*> per_kchar;
  for (const auto& r : rows) {
    if (figures.Shows(r, metrics::Shown::kPerKchar) && r.na_reason.empty())
      per_kchar[{r.cell->cell_id, r.test}] = &r;
  }
  // One line per cell and speed test; a cell with quality figures only gets one line too.
  std::set<int64_t> cells_with_speed, quality_line;
  for (const auto& r : rows) {
    if (figures.IsHeadline(r)) cells_with_speed.insert(r.cell->cell_id);
  }
  for (const auto& r : rows) {
    // A cell without speed tests gets one line, on its first quality figure.
    const bool quality_only =
        !cells_with_speed.count(r.cell->cell_id) && !quality_line.count(r.cell->cell_id) &&
        std::any_of(quality.begin(), quality.end(), [&](auto* h) { return h->makes_line(r); });
    if (quality_only) quality_line.insert(r.cell->cell_id);
    // A phase the runtime does not serve: its own line, n/a with the reason.
    const bool na_line = r.metric == "all" && !r.na_reason.empty();
    if (!figures.IsHeadline(r) && !quality_only && !na_line) continue;
    std::vector<Value> row;
    if (show_run) row.push_back(Text(std::to_string(r.cell->run_id)));
    row.push_back(Text(r.cell->model));
    row.push_back(Text(FormatBytes(double(r.cell->model_file_size))));
    row.push_back(Text(CountDisplay(r.cell->n_params)));
    row.push_back(Text(QuantDisplay(r)));
    row.push_back(Text(fmt::format("{} {}", r.cell->runtime, r.cell->runtime_version)));
    if (show_device) row.push_back(Text(r.cell->device));
    for (const auto& p : param_cols) row.push_back(Text(ParamDisplay(r, p, params)));
    const std::string test = quality_only ? "quality" : r.test;
    // The test, marked in place (every format) when the cell did not finish or its figures are
    // not to be trusted.
    std::vector<std::string> why;
    if (r.cell->cell_status != "ok") why.push_back(r.cell->cell_status);
    if (!r.cell->untrusted.empty()) why.push_back("untrusted");
    row.push_back(Text(why.empty() ? test : fmt::format("{} ({})", test, fmt::join(why, ", "))));
    std::string figure = quality_only ? "" : na_line ? "n/a: " + r.na_reason : FigureDisplay(r);
    if (auto k = per_kchar.find({r.cell->cell_id, r.test}); k != per_kchar.end() && !na_line) {
      figure += fmt::format(" · {:.0f} ms/kchar", k->second->summary.median);
    }
    row.push_back(Text(figure));
    for (size_t q = 0; q < quality.size(); ++q) {
      if (shown[q].empty()) continue;
      auto cell = shown[q].find(r.cell->cell_id);
      row.push_back(Text(cell == shown[q].end() ? "" : quality[q]->text(cell->second)));
    }
    auto it = peak.find(r.cell->cell_id);
    row.push_back(Text(it == peak.end() || !it->second->na_reason.empty()
                           ? "n/a"
                           : FormatBytes(it->second->summary.median)));
    t.Add(std::move(row), !quality_only && !na_line && r.summary.noisy);
    std::vector<std::string>& marks = t.rows.back().marks;
    if (!RequantNote(r).empty()) marks.push_back("re-quantized");
    if (r.cell->emulated) marks.push_back("emulated");
    if (r.cell->emulated_tier) marks.push_back("emulated tier");
    if (!r.cell->untrusted.empty()) marks.push_back("untrusted");
    if (na_line || (!quality_only && !r.na_reason.empty())) marks.push_back("n/a");
  }
  std::set<std::string> notes;
  for (const auto& r : rows) {
    if (const std::string n = RequantNote(r); !n.empty()) notes.insert(n);
  }
  t.footnotes.assign(notes.begin(), notes.end());
  // Each untrusted cell once, with its warning.
  std::set<std::pair<int64_t, int>> untrusted;
  for (const auto& r : rows) {
    if (r.cell->untrusted.empty() || !untrusted.insert({r.cell->run_id, r.cell->cell_index}).second)
      continue;
    t.footnotes.push_back(fmt::format("untrusted: run {} cell {}: {}", r.cell->run_id,
                                      r.cell->cell_index + 1, r.cell->untrusted));
  }
  if (emulated) {
    t.footnotes.push_back(
        "emulated: the worker ran under an emulator (its instruction set, not its host's): its "
        "quality figures are the model's on that instruction set, its timings and memory describe "
        "the emulator, not a chip");
  }
  if (tiered) {
    t.footnotes.push_back(
        "emulated tier: the worker ran in cgroups limiting its CPUs, CPU time or memory on a "
        "bigger "
        "machine: a stand-in for a smaller device's cores and memory, not its chip, caches or "
        "memory bandwidth");
  }
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
