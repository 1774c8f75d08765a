#include "pipette/report/markdown_reporter.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "pipette/util/strings.h"

namespace pipette::report {
namespace {

std::string Count(int64_t n) {
  if (n >= 1000000000) return fmt::format("{:.2f} B", double(n) / 1e9);
  if (n >= 1000000) return fmt::format("{:.2f} M", double(n) / 1e6);
  return std::to_string(n);
}

std::string Figure(const metrics::ResultRow& r) {
  std::string s = fmt::format("{:.2f} ± {:.2f} {}", r.summary.median, r.summary.stddev, r.unit);
  if (r.summary.noisy) s += fmt::format(" (noisy: CV {:.1f}%)", r.summary.cv * 100.0);
  return s;
}

// Every cell is escaped here: no text (a model named "a|b", an error over lines) breaks a row.
void Table(std::vector<std::string> header, const std::vector<bool>& right,
           std::vector<std::vector<std::string>> body, std::ostream& out) {
  for (std::string& h : header) h = MarkdownCell(h);
  for (auto& row : body) {
    for (std::string& cell : row) cell = MarkdownCell(cell);
  }
  std::vector<size_t> w(header.size());
  auto width = [](const std::string& s) {  // display width: count UTF-8 code points
    size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
  };
  for (size_t i = 0; i < header.size(); ++i) w[i] = width(header[i]);
  for (const auto& row : body) {
    for (size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], width(row[i]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    out << "|";
    for (size_t i = 0; i < cells.size(); ++i) {
      const std::string pad(w[i] - width(cells[i]), ' ');
      out << " " << (right[i] ? pad + cells[i] : cells[i] + pad) << " |";
    }
    out << "\n";
  };
  line(header);
  out << "|";
  for (size_t i = 0; i < header.size(); ++i) {
    out << (right[i] ? " " + std::string(w[i] - 1, '-') + ": |"
                     : " " + std::string(w[i], '-') + " |");
  }
  out << "\n";
  for (const auto& row : body) line(row);
}

}  // namespace

void MarkdownReporter::Write(const ReportData& data, std::ostream& out) const {
  // Parameter columns: threads and flash attention always (they decide CPU speed most), any
  // other parameter only where it varies.
  std::map<std::string, std::set<std::string>> values;
  std::vector<std::string> order;
  for (const auto& r : data.rows) {
    for (const auto& [k, v] : r.params.items()) {
      if (!values.count(k)) order.push_back(k);
      values[k].insert(metrics::ParamDisplay(r, k));
    }
  }
  std::vector<std::string> param_cols;
  for (const auto& k : order) {
    if (k == "threads" || k == "flash_attn" || values[k].size() > 1) param_cols.push_back(k);
  }
  std::map<int64_t, const metrics::ResultRow*> peak, ppl, mc;
  std::map<int64_t, std::map<std::string, const metrics::ResultRow*>> gen, kld;
  for (const auto& r : data.rows) {
    if (r.test == "memory" && r.metric == "peak_rss") peak[r.cell_id] = &r;
    if (r.metric == "ppl") ppl[r.cell_id] = &r;
    if (r.test == "mc" && r.metric == "acc" && r.subset.empty()) mc[r.cell_id] = &r;
    if (r.test == "gen" && r.subset.empty()) gen[r.cell_id][r.metric] = &r;
    if (r.test == "kld") kld[r.cell_id][r.metric] = &r;
  }
  std::set<int64_t> runs;
  for (const auto& r : data.rows) runs.insert(r.run_id);
  const bool show_run = runs.size() > 1;

  std::vector<std::string> header;
  std::vector<bool> right;
  if (show_run) {
    header.push_back("run");
    right.push_back(true);
  }
  for (const char* h : {"model", "size", "params", "quant", "runtime"}) header.push_back(h);
  for (bool b : {false, true, true, false, false}) right.push_back(b);
  for (const auto& p : param_cols) {
    header.push_back(p);
    right.push_back(true);
  }
  for (const char* h : {"test", "result"}) header.push_back(h);
  for (bool b : {true, true}) right.push_back(b);
  if (!ppl.empty()) {
    header.push_back("ppl");
    right.push_back(true);
  }
  if (!mc.empty()) {
    header.push_back("mc acc [95% CI]");
    right.push_back(true);
  }
  if (!gen.empty()) {
    header.push_back("gen format_ok / task_acc");
    right.push_back(true);
  }
  if (!kld.empty()) {
    header.push_back("kld mean / top1 agree");
    right.push_back(true);
  }
  header.push_back("peak RSS");
  right.push_back(true);

  std::vector<std::vector<std::string>> body;
  // One line per cell and speed test; a cell with quality figures only gets one line too.
  std::set<int64_t> cells_with_speed, quality_line;
  for (const auto& r : data.rows) {
    if (metrics::IsHeadline(r)) cells_with_speed.insert(r.cell_id);
  }
  for (const auto& r : data.rows) {
    // A cell without speed tests gets one line, on its first quality figure.
    const bool quality_only =
        !cells_with_speed.count(r.cell_id) && !quality_line.count(r.cell_id) &&
        (r.metric == "ppl" || ((r.test == "mc" || r.test == "gen") && r.subset.empty()) ||
         r.metric == "kld_mean");
    if (quality_only) quality_line.insert(r.cell_id);
    if (!metrics::IsHeadline(r) && !quality_only) continue;
    std::vector<std::string> row;
    if (show_run) row.push_back(std::to_string(r.run_id));
    for (std::string s :
         {r.model, FormatBytes(double(r.model_file_size)), Count(r.n_params),
          metrics::QuantDisplay(r), fmt::format("{} {}", r.runtime, r.runtime_version)}) {
      row.push_back(std::move(s));
    }
    for (const auto& p : param_cols) row.push_back(metrics::ParamDisplay(r, p));
    const std::string test = quality_only ? "quality" : r.test;
    row.push_back(r.cell_status == "ok" ? test : fmt::format("{} ({})", test, r.cell_status));
    row.push_back(quality_only ? "" : Figure(r));
    if (!ppl.empty()) {
      auto q = ppl.find(r.cell_id);
      row.push_back(q == ppl.end() ? ""
                                   : fmt::format("{:.4f} ± {:.4f}", q->second->value,
                                                 q->second->std_error.value_or(0)));
    }
    if (!mc.empty()) {
      auto q = mc.find(r.cell_id);
      row.push_back(q == mc.end() ? ""
                                  : fmt::format("{:.1f}% [{:.1f}, {:.1f}]", 100 * q->second->value,
                                                100 * q->second->ci_low.value_or(0),
                                                100 * q->second->ci_high.value_or(0)));
    }
    if (!gen.empty()) {
      auto q = gen.find(r.cell_id);
      std::string cell_text;
      if (q != gen.end() && q->second.count("format_ok") && q->second.count("task_acc")) {
        cell_text = fmt::format("{:.1f}% / {:.1f}%", 100 * q->second.at("format_ok")->value,
                                100 * q->second.at("task_acc")->value);
      }
      row.push_back(cell_text);
    }
    if (!kld.empty()) {
      auto q = kld.find(r.cell_id);
      std::string cell_text;
      if (q != kld.end() && q->second.count("kld_mean") && q->second.count("top1_agree")) {
        cell_text = fmt::format("{:.6f} / {:.1f}%", q->second.at("kld_mean")->value,
                                100 * q->second.at("top1_agree")->value);
        // A top-k reference (it has a tail mass) gives a lower bound: always said, with the
        // mass it leaves in its tail, and what to do when that is large.
        if (auto t = q->second.find("ref_tail_mass"); t != q->second.end()) {
          cell_text = fmt::format("≥ {} (top-k lower bound, tail {:.1f}%{})", cell_text,
                                  100 * t->second->value,
                                  t->second->value > 0.05 ? ": raise top_k or use mode full" : "");
        }
      }
      row.push_back(cell_text);
    }
    auto it = peak.find(r.cell_id);
    row.push_back(it == peak.end() || !it->second->na_reason.empty()
                      ? "n/a"
                      : FormatBytes(it->second->summary.median));
    body.push_back(std::move(row));
  }
  if (body.empty()) {
    out << "(no measurements)\n";
  } else {
    Table(std::move(header), right, std::move(body), out);
  }
  std::set<std::string> notes;
  for (const auto& r : data.rows) {
    if (const std::string n = metrics::RequantNote(r); !n.empty()) notes.insert(n);
  }
  if (!notes.empty()) out << "\n";
  for (const auto& n : notes) out << MarkdownLine(n) << "\n";
  bool first = true;
  for (const auto& c : data.cells) {
    if (c.status == "ok" || c.status == "superseded") continue;
    if (first) out << "\n";
    first = false;
    out << fmt::format("cell {} {}: {}\n", c.index + 1, c.status == "failed" ? "FAILED" : c.status,
                       c.error.empty() ? "(no reason recorded)" : MarkdownLine(c.error));
    out << fmt::format("  {}\n", MarkdownLine(c.key));
  }
  if (!data.warnings.empty()) out << "\n";
  for (const auto& w : data.warnings) out << "warning: " << MarkdownLine(w) << "\n";
}

void WriteVaryMarkdown(const metrics::VaryTable& table, std::ostream& out) {
  if (table.groups.empty()) {
    out << "(no completed cells to compare)\n";
    return;
  }
  bool first = true;
  for (const auto& g : table.groups) {
    if (!first) out << "\n";
    first = false;
    out << fmt::format("varying {}; fixed: {}\n\n", MarkdownLine(table.dimension),
                       MarkdownLine(g.fixed));
    std::vector<std::string> header = {table.dimension};
    std::vector<bool> right = {false};
    for (const auto& c : table.columns) {
      header.push_back(c.name);
      right.push_back(true);
    }
    std::vector<std::vector<std::string>> body;
    for (const auto& row : g.rows) {
      std::vector<std::string> cells = {row.varied_value};
      for (size_t c = 0; c < table.columns.size(); ++c) {
        if (!row.values[c]) {
          cells.push_back("");
          continue;
        }
        const bool bytes = table.columns[c].unit == "bytes";
        const std::string v =
            bytes ? FormatBytes(*row.values[c]) : fmt::format("{:.4g}", *row.values[c]);
        cells.push_back(row.ratios[c] ? fmt::format("{} ({:.2f}x)", v, *row.ratios[c]) : v);
      }
      body.push_back(std::move(cells));
    }
    Table(std::move(header), right, std::move(body), out);
  }
  if (!table.notes.empty()) out << "\n";
  for (const auto& n : table.notes) out << MarkdownLine(n) << "\n";
}

}  // namespace pipette::report
