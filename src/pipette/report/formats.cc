#include "pipette/report/formats.h"

#include <fmt/format.h>

#include "pipette/util/strings.h"

namespace pipette::report {

// The renderers, one file each.
void RenderMarkdown(const Report& report, std::ostream& out);  // markdown.cc
void RenderCsv(const Report& report, std::ostream& out);       // csv.cc
void RenderJson(const Report& report, std::ostream& out);      // json.cc
void RenderJsonl(const Report& report, std::ostream& out);     // jsonl.cc
void RenderSql(const Report& report, std::ostream& out);       // sql.cc
void RenderHtml(const Report& report, std::ostream& out);      // html.cc

const std::vector<Format>& Formats() {
  static const std::vector<Format> kFormats = {
      {"md", "the console table (Markdown): one line per cell and speed test", RenderMarkdown,
       ReportParts::kSummary},
      {"csv", "one line per (cell, test, metric) with its summary and samples", RenderCsv,
       ReportParts::kAll},
      {"json", "the versioned document of docs/report-schema.md", RenderJson, ReportParts::kAll},
      {"jsonl", "one JSON object per (cell, test, metric), the JSON report's results", RenderJsonl,
       ReportParts::kAll},
      {"sql", "CREATE TABLE results plus one INSERT per result row, for sqlite3", RenderSql,
       ReportParts::kAll},
      {"html", "one self-contained page: sortable tables and charts (Vega-Lite), opens offline",
       RenderHtml, ReportParts::kPage},
  };
  return kFormats;
}

std::vector<std::string> FormatNames() {
  std::vector<std::string> names;
  for (const Format& f : Formats()) names.emplace_back(f.name);
  return names;
}

std::string FormatList(std::string_view separator) {
  std::string list;
  for (const Format& f : Formats()) {
    if (!list.empty()) list += separator;
    list += f.name;
  }
  return list;
}

Result<const Format*> FindFormat(std::string_view name) {
  for (const Format& f : Formats()) {
    if (f.name == name) return &f;
  }
  return InputError(fmt::format("unknown report format '{}'{} (formats: {})", name,
                                DidYouMean(name, FormatNames()), FormatList()));
}

}  // namespace pipette::report
