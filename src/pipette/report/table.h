// The table model every output format renders: typed columns (name, type, unit), rows of
// values, footnotes and noise flags. Tables are built once from the derived rows
// (report/document.h, report/summary.h); a renderer (report/formats.h) only formats them.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace pipette::report {

enum class ColumnType {
  kText,
  kInteger,
  kReal,
  kBoolean,
  kJson,   // a JSON value (object, array, ...), kept in its key order
  kReals,  // a list of numbers (the per-repetition samples)
};

enum class Align { kLeft, kRight };

// Which formats show a column: every one; only the text formats (Markdown: a column that
// writes several data columns as one, "×1.20" or "[0.98, 1.02]"); only the data formats (JSON,
// CSV, JSONL).
enum class ShownIn { kAll, kText, kData };

// How a text format (Markdown) writes a column's typed values; the data formats write them as
// they are. The defaults write them as JSON does.
struct TextForm {
  std::string real{};        // a real's fmt form ("{:.4g}"); "": as JSON writes it
  std::string null{};        // what a null reads as ("—", "missing")
  std::string yes = "true";  // a boolean's text
  std::string no = "false";
  // A real in bytes (the column's unit, or the row's where the column has none) as a size:
  // "190.73 MiB".
  bool sizes = false;
};

struct Column {
  std::string name;  // a JSON key, an SQL column, a header
  ColumnType type = ColumnType::kText;
  // The unit of every value of the column; "" when it has none or when each row names its own
  // (the results table's `unit` column; Row::unit).
  std::string unit;
  Align align = Align::kLeft;  // in text tables (Markdown)
  TextForm text{};
  ShownIn shown = ShownIn::kAll;
};

// One value: null (std::monostate) or of its column's type.
using Value = std::variant<std::monostate, std::string, int64_t, double, bool,
                           nlohmann::ordered_json, std::vector<double>>;

inline Value Null() { return Value(); }
inline Value Text(std::string s) { return Value(std::in_place_type<std::string>, std::move(s)); }
inline Value Integer(int64_t v) { return Value(std::in_place_type<int64_t>, v); }
inline Value Real(double v) { return Value(std::in_place_type<double>, v); }
inline Value Boolean(bool v) { return Value(std::in_place_type<bool>, v); }
inline Value Json(nlohmann::ordered_json j) {
  return Value(std::in_place_type<nlohmann::ordered_json>, std::move(j));
}
inline Value Reals(std::vector<double> v) {
  return Value(std::in_place_type<std::vector<double>>, std::move(v));
}
// Null for "" (a field the JSON report gives as null when empty).
inline Value TextOrNull(const std::string& s) { return s.empty() ? Null() : Text(s); }
inline Value RealOrNull(const std::optional<double>& v) { return v ? Real(*v) : Null(); }
inline Value IntegerOrNull(const std::optional<int64_t>& v) { return v ? Integer(*v) : Null(); }

inline bool IsNull(const Value& v) { return std::holds_alternative<std::monostate>(v); }

struct Row {
  std::vector<Value> values;  // one per column
  // The row's figure is noisy (its coefficient of variation is above 5%): a renderer may mark it.
  bool noisy = false;
  // What else a reader must see in place (the HTML report marks the row with them):
  // "re-quantized", "emulated", "emulated tier", "n/a".
  std::vector<std::string> marks;
  // The unit of the row's figure, for a table whose rows each have their own and whose data
  // formats do not show it (TextForm::sizes reads it).
  std::string unit{};
};

struct Table {
  std::string name;   // "results": the JSON key, the SQL table
  std::string title;  // a caption shown above the table, if any
  std::vector<Column> columns;
  std::vector<Row> rows;
  std::vector<std::string> footnotes;  // plain sentences shown under the table

  // Position of the column named `name`, if there is one.
  std::optional<size_t> Find(std::string_view column) const;
  void Add(std::vector<Value> values, bool noisy = false) {
    rows.push_back({std::move(values), noisy, {}, {}});
  }
};

// A value as JSON: null, a string, a number, a boolean, the JSON itself or an array.
nlohmann::ordered_json ToJson(const Value& v);
// A row as one JSON object whose keys are the column names, in column order (the columns the data
// formats show).
nlohmann::ordered_json RowObject(const Table& table, const Row& row);
// A row's value of `column` as a text format writes it (TextForm): a text as it is.
std::string TextOf(const Column& column, const Row& row, const Value& value);

}  // namespace pipette::report
