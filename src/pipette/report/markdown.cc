// The `md` format: the console table, footnotes, the cells that did not complete, warnings.
#include "pipette/report/markdown.h"

#include <fmt/format.h>

#include <algorithm>

#include "pipette/report/document.h"
#include "pipette/util/strings.h"

namespace pipette::report {
namespace {

size_t DisplayWidth(const std::string& s) {  // count UTF-8 code points
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

void WriteMarkdownTable(const Table& table, std::ostream& out) {
  std::vector<size_t> shown;  // the columns a text format shows
  for (size_t i = 0; i < table.columns.size(); ++i) {
    if (table.columns[i].shown != ShownIn::kData) shown.push_back(i);
  }
  const size_t n = shown.size();
  std::vector<std::string> header(n);
  std::vector<size_t> w(n);
  for (size_t k = 0; k < n; ++k) {
    header[k] = MarkdownCell(table.columns[shown[k]].name);
    w[k] = DisplayWidth(header[k]);
  }
  std::vector<std::vector<std::string>> body;
  for (const Row& row : table.rows) {
    std::vector<std::string> cells(n);
    for (size_t k = 0; k < n && shown[k] < row.values.size(); ++k) {
      cells[k] = MarkdownCell(TextOf(table.columns[shown[k]], row, row.values[shown[k]]));
      w[k] = std::max(w[k], DisplayWidth(cells[k]));
    }
    body.push_back(std::move(cells));
  }
  auto right = [&](size_t k) { return table.columns[shown[k]].align == Align::kRight; };
  auto line = [&](const std::vector<std::string>& cells) {
    out << "|";
    for (size_t k = 0; k < n; ++k) {
      const std::string pad(w[k] - DisplayWidth(cells[k]), ' ');
      out << " " << (right(k) ? pad + cells[k] : cells[k] + pad) << " |";
    }
    out << "\n";
  };
  line(header);
  out << "|";
  for (size_t k = 0; k < n; ++k) {
    out << (right(k) ? " " + std::string(w[k] - 1, '-') + ": |"
                     : " " + std::string(w[k], '-') + " |");
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
