#include "pipette/report/html.h"

#include <fmt/format.h>

#include <string>
#include <variant>

namespace pipette::report {
namespace {

// The page's own style and script: sorting and filtering the tables, drawing the charts.
constexpr const char* kStyle = R"CSS(
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 2em 4em; color: #222; }
h1 { margin-bottom: 0.2em; }
h2 { margin-top: 2em; border-bottom: 1px solid #ddd; }
nav a { margin-right: 1em; }
.meta { color: #666; }
.about { color: #444; max-width: 60em; }
.empty { color: #8a6d3b; background: #fcf8e3; padding: 0.6em 1em; max-width: 60em; }
.not-in-run { color: #666; max-width: 60em; }
.not-in-run span[title] { border-bottom: 1px dotted #999; cursor: help; }
.warning { color: #8a3b3b; background: #fbeaea; padding: 0.4em 1em; margin: 0.3em 0; }
table { border-collapse: collapse; margin: 0.8em 0; }
caption { text-align: left; font-weight: 600; padding: 0.3em 0; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; vertical-align: top; }
th { background: #f4f4f4; cursor: pointer; user-select: none; white-space: nowrap; }
th[aria-sort="ascending"]::after { content: " \25B2"; }
th[aria-sort="descending"]::after { content: " \25BC"; }
td.right { text-align: right; white-space: nowrap; }
td pre { margin: 0; font-size: 12px; max-height: 16em; overflow: auto; }
tr.noisy td { background: #fff4e5; }
tr.emulated td, tr.emulated-tier td { background: #eef3fb; }
tr.n-a td { color: #888; }
tr.untrusted td { background: #fdecea; }
.mark { display: inline-block; font-size: 11px; border-radius: 3px; padding: 0 0.4em;
        margin-right: 0.3em; background: #ddd; }
.mark.noisy { background: #f58518; color: #fff; }
.mark.re-quantized { background: #b279a2; color: #fff; }
.mark.emulated, .mark.emulated-tier { background: #4c78a8; color: #fff; }
.mark.n-a { background: #999; color: #fff; }
.mark.untrusted { background: #c0392b; color: #fff; }
.footnote { color: #555; font-size: 13px; max-width: 60em; }
figure { margin: 1.2em 0; }
figcaption { font-weight: 600; margin-bottom: 0.4em; }
#filter { padding: 0.3em; width: 24em; }
)CSS";

constexpr const char* kScript = R"JS(
"use strict";
// A cell's text as a sort key: the number it starts with, in bytes for sizes; else the text.
function sortKey(text) {
  const m = text.replace(/,/g, "").match(/^\s*(-?[0-9.]+(?:e[-+]?[0-9]+)?)\s*(KiB|MiB|GiB|TiB|B|k|M|G|%)?/);
  if (!m) return { n: null, t: text.trim().toLowerCase() };
  const scale = { KiB: 1024, MiB: 1048576, GiB: 1073741824, TiB: 1099511627776, k: 1e3, M: 1e6, G: 1e9 };
  return { n: parseFloat(m[1]) * (scale[m[2]] || 1), t: text };
}
function sortTable(table, column, th) {
  const body = table.tBodies[0];
  const ascending = th.getAttribute("aria-sort") !== "ascending";
  for (const h of table.tHead.rows[0].cells) h.removeAttribute("aria-sort");
  th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  const rows = Array.from(body.rows);
  rows.sort((a, b) => {
    const x = sortKey(a.cells[column].textContent), y = sortKey(b.cells[column].textContent);
    let c;
    if (x.n !== null && y.n !== null) c = x.n - y.n;
    else if (x.n !== null) c = -1;
    else if (y.n !== null) c = 1;
    else c = x.t < y.t ? -1 : x.t > y.t ? 1 : 0;
    return ascending ? c : -c;
  });
  for (const r of rows) body.appendChild(r);
}
for (const table of document.querySelectorAll("table.sortable")) {
  Array.from(table.tHead.rows[0].cells).forEach((th, i) => {
    th.title = "sort by " + th.textContent;
    th.addEventListener("click", () => sortTable(table, i, th));
  });
}
const filter = document.getElementById("filter");
if (filter) {
  filter.addEventListener("input", () => {
    const words = filter.value.toLowerCase().split(/\s+/).filter(w => w);
    for (const row of document.querySelectorAll("#summary-table tbody tr")) {
      const text = row.textContent.toLowerCase();
      row.hidden = !words.every(w => text.includes(w));
    }
  });
}
for (const el of document.querySelectorAll(".pipette-chart")) {
  const spec = JSON.parse(document.getElementById("spec-" + el.dataset.chart).textContent);
  vegaEmbed(el, spec, { actions: false, renderer: "svg" }).catch(e => {
    console.error("chart " + el.dataset.chart + ": " + e);
    el.textContent = "this chart could not be drawn: " + e;
  });
}
)JS";

// The class a mark gives its row and badge: "emulated tier" -> "emulated-tier", "n/a" -> "n-a".
std::string MarkClass(const std::string& mark) {
  std::string c;
  for (char ch : mark) c += (ch == ' ' || ch == '/') ? '-' : ch;
  return c;
}

std::string CellText(const Value& v) {
  if (IsNull(v)) return "";
  if (auto* s = std::get_if<std::string>(&v)) return HtmlEscape(*s);
  if (auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&v)) return fmt::format("{:.6g}", *d);
  if (auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (auto* j = std::get_if<nlohmann::ordered_json>(&v)) {
    if (j->is_null() || j->empty()) return "";
    return "<pre>" + HtmlEscape(j->dump(1)) + "</pre>";
  }
  const auto& reals = std::get<std::vector<double>>(v);
  std::string s;
  for (double d : reals) s += fmt::format("{}{:.6g}", s.empty() ? "" : ", ", d);
  return s;
}

void RenderTable(const Table& t, std::ostream& out, const std::string& id = "") {
  bool marked = false;
  for (const Row& r : t.rows) marked = marked || r.noisy || !r.marks.empty();
  out << "<table class=\"sortable\"" << (id.empty() ? "" : " id=\"" + id + "\"") << ">\n";
  if (!t.title.empty()) out << "<caption>" << HtmlEscape(t.title) << "</caption>\n";
  out << "<thead><tr>";
  for (const Column& c : t.columns) {
    out << "<th>" << HtmlEscape(c.name);
    if (!c.unit.empty()) out << " (" << HtmlEscape(c.unit) << ")";
    out << "</th>";
  }
  if (marked) out << "<th>marks</th>";
  out << "</tr></thead>\n<tbody>\n";
  for (const Row& r : t.rows) {
    std::vector<std::string> marks;
    if (r.noisy) marks.push_back("noisy");
    marks.insert(marks.end(), r.marks.begin(), r.marks.end());
    std::string classes;
    for (const std::string& m : marks) {
      classes += (classes.empty() ? "" : " ") + HtmlEscape(MarkClass(m));
    }
    out << "<tr" << (classes.empty() ? "" : " class=\"" + classes + "\"") << ">";
    for (size_t i = 0; i < t.columns.size() && i < r.values.size(); ++i) {
      out << (t.columns[i].align == Align::kRight ? "<td class=\"right\">" : "<td>")
          << CellText(r.values[i]) << "</td>";
    }
    if (marked) {
      out << "<td>";
      for (const std::string& m : marks) {
        out << "<span class=\"mark " << HtmlEscape(MarkClass(m)) << "\">" << HtmlEscape(m)
            << "</span>";
      }
      out << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</tbody>\n</table>\n";
  for (const std::string& f : t.footnotes) {
    out << "<p class=\"footnote\">" << HtmlEscape(f) << "</p>\n";
  }
}

// The sections with nothing to show, folded into one line under the summary: each by its title
// (the reason and what fills it as its tooltip), with the experiment setting that fills it.
void RenderNotInRun(const std::vector<PageSection>& page, std::ostream& out) {
  std::string items;
  for (const PageSection& s : page) {
    if (s.empty.empty()) continue;
    items += fmt::format("{}<span title=\"{}\">{}</span>", items.empty() ? "" : ", ",
                         HtmlEscape(s.empty), HtmlEscape(s.title));
    if (!s.fill.empty()) items += " (" + HtmlEscape(s.fill) + ")";
  }
  if (items.empty()) return;
  out << "<p class=\"not-in-run\" id=\"not-in-run\">Not in this run: " << items
      << ". The experiment setting in brackets fills each; hover a name for why it is "
         "empty.</p>\n";
}

int ChartCount(const Report& report) {
  int n = 0;
  for (const PageSection& s : report.page) n += int(s.charts.size());
  return n;
}

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string ScriptJson(const nlohmann::ordered_json& j) {
  const std::string text = j.dump();
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

void RenderHtmlPage(const Report& report, const std::vector<WebLibrary>& libraries,
                    std::ostream& out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      // What the browser test checks the rendered page against.
      << "<meta name=\"pipette-charts\" content=\"" << ChartCount(report) << "\">\n"
      << "<meta name=\"generator\" content=\"pipette " << HtmlEscape(report.pipette_version)
      << "\">\n<title>Pipette report: " << HtmlEscape(report.store) << "</title>\n<style>" << kStyle
      << "</style>\n";
  for (const WebLibrary& lib : libraries) {
    out << "<script>/* " << lib.name << " " << lib.version << " (npm), inlined */\n"
        << lib.script << "\n</script>\n";
  }
  out << "</head>\n<body>\n<h1>Pipette report</h1>\n<p class=\"meta\">" << report.schema << " v"
      << report.schema_version << " · generated " << HtmlEscape(report.generated_at)
      << " by pipette " << HtmlEscape(report.pipette_version) << " · store "
      << HtmlEscape(report.store) << "</p>\n<nav><a href=\"#summary\">Summary</a>";
  for (const PageSection& s : report.page) {
    if (!s.empty.empty()) continue;  // folded into the "Not in this run" line
    out << "<a href=\"#" << HtmlEscape(s.id) << "\">" << HtmlEscape(s.title) << "</a>";
  }
  out << "</nav>\n";
  for (const std::string& w : report.warnings) {
    out << "<p class=\"warning\">warning: " << HtmlEscape(w) << "</p>\n";
  }

  out << "<section id=\"summary\">\n<h2>Summary</h2>\n<p class=\"about\">One line per cell and "
         "speed test, with the cell's quality figures and peak memory beside it. Click a heading "
         "to sort; type to filter (every word must appear in the line).</p>\n"
      << "<input id=\"filter\" type=\"search\" placeholder=\"filter: model, quant, test…\">\n";
  if (report.summary.rows.empty()) {
    out << "<p class=\"empty\">No figure in these runs.</p>\n";
  } else {
    RenderTable(report.summary, out, "summary-table");
  }
  for (const CellNote& n : report.incomplete) {
    out << "<p class=\"warning\">cell " << n.cell << " " << HtmlEscape(n.status) << ": "
        << HtmlEscape(n.reason) << " (" << HtmlEscape(n.key) << ")</p>\n";
  }
  out << "</section>\n";

  RenderNotInRun(report.page, out);
  for (const PageSection& s : report.page) {
    if (!s.empty.empty()) continue;
    out << "<section id=\"" << HtmlEscape(s.id) << "\">\n<h2>" << HtmlEscape(s.title) << "</h2>\n"
        << "<p class=\"about\">" << HtmlEscape(s.about) << "</p>\n";
    for (const Chart& c : s.charts) {
      out << "<figure>\n<figcaption>" << HtmlEscape(c.title) << "</figcaption>\n"
          << "<div class=\"pipette-chart\" data-chart=\"" << HtmlEscape(c.id) << "\"></div>\n"
          << "<script type=\"application/json\" id=\"spec-" << HtmlEscape(c.id) << "\">"
          << ScriptJson(c.spec) << "</script>\n</figure>\n";
    }
    for (const Table& t : s.tables) RenderTable(t, out);
    out << "</section>\n";
  }
  out << "<script>" << kScript << "</script>\n</body>\n</html>\n";
}

void RenderHtml(const Report& report, std::ostream& out) {
  RenderHtmlPage(report, WebLibraries(), out);
}

}  // namespace pipette::report
