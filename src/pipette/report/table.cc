#include "pipette/report/table.h"

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
    o[table.columns[i].name] = ToJson(row.values[i]);
  }
  return o;
}

}  // namespace pipette::report
