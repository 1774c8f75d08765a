// The `sql` format: the results table as SQL that sqlite3 loads as printed
// (`pipette report --format sql | sqlite3 results.db`): CREATE TABLE IF NOT EXISTS, so that
// reports of several runs go into one database, and one INSERT per result row, in one
// transaction. Strings are quoted (' doubled); a control character (a line break) is spliced in
// with char(N), so each statement is one line; JSON values are TEXT (json_extract reads them).
#include <fmt/format.h>

#include <cmath>

#include "pipette/report/document.h"

namespace pipette::report {
namespace {

std::string SqlText(std::string_view s) {
  std::string out;
  bool open = false;
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) {
      if (open) out += '\'';
      open = false;
      if (!out.empty()) out += "||";
      out += fmt::format("char({})", int(c));
      continue;
    }
    if (!open) {
      if (!out.empty()) out += "||";
      out += '\'';
      open = true;
    }
    if (c == '\'') out += '\'';
    out += static_cast<char>(c);
  }
  if (open) out += '\'';
  return out.empty() ? "''" : out;
}

struct Literal {
  std::string operator()(std::monostate) const { return "NULL"; }
  std::string operator()(const std::string& s) const { return SqlText(s); }
  std::string operator()(int64_t i) const { return std::to_string(i); }
  // The shortest form that reads back exactly; NaN and infinities (null in JSON) are NULL.
  std::string operator()(double d) const {
    return std::isfinite(d) ? fmt::format("{}", d) : std::string("NULL");
  }
  std::string operator()(bool b) const { return b ? "1" : "0"; }
  std::string operator()(const nlohmann::ordered_json& j) const {
    return j.is_null() ? "NULL" : SqlText(j.dump());
  }
  std::string operator()(const std::vector<double>& xs) const {
    return SqlText(nlohmann::ordered_json(xs).dump());
  }
};

const char* SqlType(ColumnType t) {
  switch (t) {
    case ColumnType::kInteger:
    case ColumnType::kBoolean:
      return "INTEGER";
    case ColumnType::kReal:
      return "REAL";
    case ColumnType::kText:
    case ColumnType::kJson:
    case ColumnType::kReals:
      return "TEXT";
  }
  return "TEXT";
}

// What a column's SQL type does not say: its unit, or how its text is to be read.
std::string Comment(const Column& c) {
  if (c.type == ColumnType::kBoolean) return "0 or 1";
  if (c.type == ColumnType::kJson) return "JSON";
  if (c.type == ColumnType::kReals) return "JSON array of numbers";
  return c.unit;
}

}  // namespace

void RenderSql(const Report& report, std::ostream& out) {
  const Table& t = report.results;
  out << fmt::format("-- {} schema_version {}, generated_at {}, pipette {}\n", report.schema,
                     report.schema_version, report.generated_at, report.pipette_version);
  out << "BEGIN TRANSACTION;\n";
  out << fmt::format("CREATE TABLE IF NOT EXISTS \"{}\" (\n", t.name);
  std::string names;
  for (size_t i = 0; i < t.columns.size(); ++i) {
    const Column& c = t.columns[i];
    const std::string comment = Comment(c);
    out << fmt::format("  \"{}\" {}{}{}\n", c.name, SqlType(c.type),
                       i + 1 < t.columns.size() ? "," : "",
                       comment.empty() ? "" : " -- " + comment);
    names += fmt::format("{}\"{}\"", i ? ", " : "", c.name);
  }
  out << ");\n";
  std::string line;
  for (const Row& row : t.rows) {
    line = fmt::format("INSERT INTO \"{}\" ({}) VALUES (", t.name, names);
    for (size_t i = 0; i < row.values.size(); ++i) {
      if (i) line += ", ";
      line += std::visit(Literal{}, row.values[i]);
    }
    out << line << ");\n";
  }
  out << "COMMIT;\n";
}

}  // namespace pipette::report
