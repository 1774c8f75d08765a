// The `md` format: the console table, footnotes, the cells that did not complete, warnings.
#include "pipette/report/markdown.h"

#include <fmt/format.h>

#include <algorithm>

#include "pipette/report/document.h"
#include "pipette/util/strings.h"

namespace pipette::report {
namespace {

std::string CellText(const Value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (IsNull(v)) return "";
  const nlohmann::ordered_json j = ToJson(v);
  return j.is_string() ? j.get<std::string>() : j.dump();
}

size_t DisplayWidth(const std::string& s) {  // count UTF-8 code points
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

void WriteMarkdownTable(const Table& table, std::ostream& out) {
  const size_t n = table.columns.size();
  std::vector<std::string> header(n);
  std::vector<size_t> w(n);
  for (size_t i = 0; i < n; ++i) {
    header[i] = MarkdownCell(table.columns[i].name);
    w[i] = DisplayWidth(header[i]);
  }
  std::vector<std::vector<std::string>> body;
  for (const Row& row : table.rows) {
    std::vector<std::string> cells(n);
    for (size_t i = 0; i < n && i < row.values.size(); ++i) {
      cells[i] = MarkdownCell(CellText(row.values[i]));
      w[i] = std::max(w[i], DisplayWidth(cells[i]));
    }
    body.push_back(std::move(cells));
  }
  auto right = [&](size_t i) { return table.columns[i].align == Align::kRight; };
  auto line = [&](const std::vector<std::string>& cells) {
    out << "|";
    for (size_t i = 0; i < n; ++i) {
      const std::string pad(w[i] - DisplayWidth(cells[i]), ' ');
      out << " " << (right(i) ? pad + cells[i] : cells[i] + pad) << " |";
    }
    out << "\n";
  };
  line(header);
  out << "|";
  for (size_t i = 0; i < n; ++i) {
    out << (right(i) ? " " + std::string(w[i] - 1, '-') + ": |"
                     : " " + std::string(w[i], '-') + " |");
  }
  out << "\n";
  for (const auto& row : body) line(row);
}

void RenderMarkdown(const Report& report, std::ostream& out) {
  if (report.summary.rows.empty()) {
    out << "(no measurements)\n";
  } else {
    WriteMarkdownTable(report.summary, out);
  }
  if (!report.summary.footnotes.empty()) out << "\n";
  for (const auto& n : report.summary.footnotes) out << MarkdownLine(n) << "\n";
  for (const Table& curve : report.curves) {
    out << "\n" << MarkdownLine(curve.title) << "\n\n";
    if (!curve.rows.empty()) WriteMarkdownTable(curve, out);
    if (!curve.footnotes.empty() && !curve.rows.empty()) out << "\n";
    for (const auto& n : curve.footnotes) out << MarkdownLine(n) << "\n";
  }
  if (!report.incomplete.empty()) out << "\n";
  for (const CellNote& c : report.incomplete) {
    out << fmt::format("cell {} {}: {}\n", c.cell, c.status == "failed" ? "FAILED" : c.status,
                       MarkdownLine(c.reason));
    out << fmt::format("  {}\n", MarkdownLine(c.key));
  }
  if (!report.warnings.empty()) out << "\n";
  for (const auto& w : report.warnings) out << "warning: " << MarkdownLine(w) << "\n";
}

void WriteVaryMarkdown(const VaryView& view, std::ostream& out) {
  if (view.tables.empty()) {
    out << "(no completed cells to compare)\n";
    return;
  }
  bool first = true;
  for (const Table& t : view.tables) {
    if (!first) out << "\n";
    first = false;
    out << MarkdownLine(t.title) << "\n\n";
    WriteMarkdownTable(t, out);
  }
  if (!view.notes.empty()) out << "\n";
  for (const auto& n : view.notes) out << MarkdownLine(n) << "\n";
}

}  // namespace pipette::report
