#include "pipette/report/table.h"

#include <fmt/format.h>

#include "pipette/util/strings.h"

namespace pipette::report {

std::optional<size_t> Table::Find(std::string_view column) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == column) return i;
  }
  return std::nullopt;
}

nlohmann::ordered_json ToJson(const Value& v) {
  using json = nlohmann::ordered_json;
  struct Visitor {
    json operator()(std::monostate) const { return json(); }
    json operator()(const std::string& s) const { return json(s); }
    json operator()(int64_t i) const { return json(i); }
    json operator()(double d) const { return json(d); }
    json operator()(bool b) const { return json(b); }
    json operator()(const json& j) const { return j; }
    json operator()(const std::vector<double>& xs) const { return json(xs); }
  };
  return std::visit(Visitor{}, v);
}

nlohmann::ordered_json RowObject(const Table& table, const Row& row) {
  nlohmann::ordered_json o = nlohmann::ordered_json::object();
  for (size_t i = 0; i < table.columns.size() && i < row.values.size(); ++i) {
    if (table.columns[i].shown == ShownIn::kText) continue;
    o[table.columns[i].name] = ToJson(row.values[i]);
  }
  return o;
}

std::string TextOf(const Column& column, const Row& row, const Value& value) {
  const TextForm& form = column.text;
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  if (IsNull(value)) return form.null;
  if (const auto* b = std::get_if<bool>(&value)) return *b ? form.yes : form.no;
  if (const auto* d = std::get_if<double>(&value)) {
    const std::string& unit = column.unit.empty() ? row.unit : column.unit;
    if (form.sizes && unit == "bytes") return FormatBytes(*d);
    if (!form.real.empty()) return fmt::format(fmt::runtime(form.real), *d);
  }
  const nlohmann::ordered_json j = ToJson(value);
  return j.is_string() ? j.get<std::string>() : j.dump();
}

}  // namespace pipette::report
