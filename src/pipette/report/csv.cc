// The `csv` format: one line per result row (RFC 4180), the results table's columns below.
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "pipette/report/document.h"
#include "pipette/report/table_formats.h"

namespace pipette::report {
namespace {

// The CSV's columns, in its order (a subset of the results table: docs/report-schema.md).
const std::vector<std::string>& CsvColumns() {
  static const std::vector<std::string> kColumns = {"run_id",
                                                    "cell",
                                                    "cell_status",
                                                    "untrusted",
                                                    "model",
                                                    "model_sha256",
                                                    "model_file_size",
                                                    "n_params",
                                                    "quant",
                                                    "quant_origin",
                                                    "base_model",
                                                    "runtime",
                                                    "runtime_version",
                                                    "runtime_build",
                                                    "device",
                                                    "device_id",
                                                    "emulated",
                                                    "emulated_tier",
                                                    "params",
                                                    "test",
                                                    "metric",
                                                    "unit",
                                                    "median",
                                                    "min",
                                                    "max",
                                                    "mean",
                                                    "stddev",
                                                    "cv",
                                                    "n",
                                                    "noisy",
                                                    "value",
                                                    "std_error",
                                                    "ci_low",
                                                    "ci_high",
                                                    "subset",
                                                    "na",
                                                    "dataset_sha256",
                                                    "samples"};
  return kColumns;
}

// RFC 4180 quoting where needed.
std::string Quoted(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// Whole numbers (bytes, counts) in full; others in the shortest form that reads back exactly.
std::string Num(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{:.0f}", v);
  return fmt::format("{}", v);
}

struct Field {
  std::string operator()(std::monostate) const { return ""; }
  std::string operator()(const std::string& s) const { return Quoted(s); }
  std::string operator()(int64_t i) const { return std::to_string(i); }
  std::string operator()(double d) const { return Num(d); }
  std::string operator()(bool b) const { return b ? "true" : "false"; }
  std::string operator()(const nlohmann::ordered_json& j) const { return Quoted(j.dump()); }
  std::string operator()(const std::vector<double>& xs) const {  // samples: ';' between
    std::string s;
    for (size_t i = 0; i < xs.size(); ++i) s += (i ? ";" : "") + Num(xs[i]);
    return s;
  }
};

}  // namespace

void RenderCsv(const Report& report, std::ostream& out) {
  const Table& t = report.results;
  std::vector<size_t> at;
  std::string header;
  for (const std::string& name : CsvColumns()) {
    if (auto i = t.Find(name)) {
      at.push_back(*i);
      header += (header.empty() ? "" : ",") + name;
    }
  }
  out << header << "\n";
  std::string line;
  for (const Row& row : t.rows) {
    line.clear();
    for (size_t k = 0; k < at.size(); ++k) {
      if (k) line += ',';
      line += std::visit(Field{}, row.values[at[k]]);
    }
    out << line << "\n";
  }
}

void WriteCsvTable(const Table& table, std::ostream& out) {
  std::vector<size_t> at;
  std::string line;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    if (table.columns[i].shown == ShownIn::kText) continue;
    at.push_back(i);
    line += (line.empty() ? "" : ",") + Quoted(table.columns[i].name);
  }
  out << line << "\n";
  for (const Row& row : table.rows) {
    line.clear();
    for (size_t k = 0; k < at.size(); ++k) {
      if (k) line += ',';
      if (at[k] < row.values.size()) line += std::visit(Field{}, row.values[at[k]]);
    }
    out << line << "\n";
  }
}

}  // namespace pipette::report
