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

const FormatRegistry& Formats() {
  static const FormatRegistry kFormats({
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
  });
  return kFormats;
}

std::vector<std::string> FormatRegistry::Names() const {
  std::vector<std::string> names;
  for (const Format& f : formats_) names.emplace_back(f.name);
  return names;
}

std::string FormatRegistry::List(std::string_view separator) const {
  std::string list;
  for (const Format& f : formats_) {
    if (!list.empty()) list += separator;
    list += f.name;
  }
  return list;
}

Result<const Format*> FormatRegistry::Find(std::string_view name) const {
  for (const Format& f : formats_) {
    if (f.name == name) return &f;
  }
  return InputError(fmt::format("unknown report format '{}'{} (formats: {})", name,
                                DidYouMean(name, Names()), List()));
}

std::vector<std::string> FormatNames() { return Formats().Names(); }
std::string FormatList(std::string_view separator) { return Formats().List(separator); }
Result<const Format*> FindFormat(std::string_view name) { return Formats().Find(name); }

}  // namespace pipette::report
