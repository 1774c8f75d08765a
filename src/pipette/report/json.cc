// The `json` format: the versioned document of docs/report-schema.md, every table as an array of
// objects in its column order.
//
// Written as it goes, value by value, rather than built as one JSON document and dumped: a run of
// many rows would otherwise hold every value twice more (as the document and as its text). The
// text is exactly what nlohmann's dump(2) of that document gives (tests: formats_test).
#include <string>

#include "pipette/report/document.h"

namespace pipette::report {
namespace {

using json = nlohmann::ordered_json;

// `text` (a dump(2) of a value) as it reads nested `depth` levels deep: every line after the
// first indented 2 * depth spaces more. JSON text has no raw newline inside a string.
void AppendNested(std::string& out, const std::string& text, size_t depth) {
  const std::string newline = "\n" + std::string(2 * depth, ' ');
  size_t start = 0;
  for (size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', start)) {
    out.append(text, start, nl - start);
    out += newline;
    start = nl + 1;
  }
  out.append(text, start);
}

void AppendValue(std::string& out, const Value& v, size_t depth) {
  if (const auto* j = std::get_if<json>(&v)) {
    AppendNested(out, j->dump(2), depth);
  } else {
    AppendNested(out, ToJson(v).dump(2), depth);
  }
}

// One row as the object RowObject gives, nested `depth` levels deep.
void AppendRow(std::string& out, const Table& t, const Row& row, size_t depth) {
  const size_t n = std::min(t.columns.size(), row.values.size());
  if (n == 0) {
    out += "{}";
    return;
  }
  const std::string indent(2 * (depth + 1), ' ');
  out += "{\n";
  for (size_t i = 0; i < n; ++i) {
    out += indent;
    out += json(t.columns[i].name).dump();
    out += ": ";
    AppendValue(out, row.values[i], depth + 1);
    out += i + 1 < n ? ",\n" : "\n";
  }
  out += std::string(2 * depth, ' ');
  out += "}";
}

}  // namespace

void RenderJson(const Report& report, std::ostream& out) {
  json head;
  head["schema"] = report.schema;
  head["schema_version"] = report.schema_version;
  head["generated_at"] = report.generated_at;
  head["pipette_version"] = report.pipette_version;
  head["store"] = report.store;
  head["warnings"] = report.warnings;
  std::string text = "{\n";
  for (const auto& [key, value] : head.items()) {
    text += "  " + json(key).dump() + ": ";
    AppendNested(text, value.dump(2), 1);
    text += ",\n";
  }
  out << text;
  const Table* tables[] = {&report.runs, &report.environments, &report.cells, &report.results,
                           &report.mc_items};
  for (const Table* t : tables) {
    text = "  " + json(t->name).dump() + ": ";
    if (t->rows.empty()) {
      text += "[]";
    } else {
      text += "[\n";
      for (size_t i = 0; i < t->rows.size(); ++i) {
        text += "    ";
        AppendRow(text, *t, t->rows[i], 2);
        text += i + 1 < t->rows.size() ? ",\n" : "\n";
        if (text.size() > (1 << 16)) {  // written in pieces: the text is never held whole
          out << text;
          text.clear();
        }
      }
      text += "  ]";
    }
    text += t == tables[4] ? "\n" : ",\n";
    out << text;
  }
  out << "}\n";
}

}  // namespace pipette::report
