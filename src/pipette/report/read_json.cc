#include "pipette/report/read_json.h"

#include <fmt/format.h>

#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "pipette/report/data.h"
#include "pipette/util/json_parse.h"

namespace pipette::report {
namespace {

using nlohmann::json;

// One result's fields, each type-checked where it is read: the first field of the wrong type is
// kept as an error naming the file, the result's index and the field (exit 2), and read as empty;
// never an exception.
class Fields {
 public:
  Fields(const json& o, const std::string& file, size_t index)
      : o_(o), file_(file), index_(index) {}

  const std::optional<Error>& error() const { return error_; }
  void Wrong(const char* key, const char* what) {
    if (!error_) {
      error_ = InputError(fmt::format("{}: results[{}].{} is not {}", file_, index_, key, what));
    }
  }
  // Text, or "" when absent or null.
  std::string Str(const char* key) {
    const json* v = Find(key);
    if (v && !v->is_string()) Wrong(key, "text");
    return v && v->is_string() ? v->get<std::string>() : std::string();
  }
  // A number, or nullopt when absent or null.
  std::optional<double> Real(const char* key) {
    const json* v = Find(key);
    if (v && !v->is_number()) Wrong(key, "a number");
    return v && v->is_number() ? std::optional<double>(v->get<double>()) : std::nullopt;
  }
  int64_t Int(const char* key) {
    const json* v = Find(key);
    if (v && !v->is_number_integer()) Wrong(key, "a whole number");
    return v && v->is_number_integer() ? v->get<int64_t>() : 0;
  }
  bool Bool(const char* key) {
    const json* v = Find(key);
    if (v && !v->is_boolean()) Wrong(key, "true or false");
    return v && v->is_boolean() && v->get<bool>();
  }
  // An object, or nullptr when absent or null.
  const json* Object(const char* key) {
    const json* v = Find(key);
    if (v && !v->is_object()) Wrong(key, "an object");
    return v && v->is_object() ? v : nullptr;
  }
  // The samples: numbers, a null read as a sample that is not a finite number (JSON has no NaN:
  // the report writes one so), so that the figure reads as invalid (compare calls it missing),
  // never as 0.
  std::vector<double> Samples() {
    std::vector<double> out;
    const json* v = Find("samples");
    if (!v) return out;
    if (!v->is_array()) {
      Wrong("samples", "a list of numbers");
      return out;
    }
    if (v->size() > kMaxReportSamples) {
      if (!error_) {
        error_ =
            InputError(fmt::format("{}: results[{}].samples holds {} values, more than the {} "
                                   "a figure may hold",
                                   file_, index_, v->size(), kMaxReportSamples));
      }
      return out;
    }
    out.reserve(v->size());
    for (const json& s : *v) {
      if (!s.is_null() && !s.is_number()) {
        Wrong("samples", "a list of numbers (or null for a sample that is not a finite number)");
        return {};
      }
      out.push_back(s.is_null() ? std::numeric_limits<double>::quiet_NaN() : s.get<double>());
    }
    return out;
  }

 private:
  // The field, or nullptr when absent or null.
  const json* Find(const char* key) const {
    const auto it = o_.find(key);
    return it == o_.end() || it->is_null() ? nullptr : &*it;
  }

  const json& o_;
  const std::string& file_;
  size_t index_;
  std::optional<Error> error_;
};

std::shared_ptr<const metrics::CellFacts> CellOf(Fields& f, int64_t run, int64_t cell) {
  auto c = std::make_shared<metrics::CellFacts>();
  c->run_id = run;
  c->cell_index = static_cast<int>(cell) - 1;
  c->cell_status = f.Str("cell_status");
  c->model = f.Str("model");
  c->model_sha256 = f.Str("model_sha256");
  c->model_file_size = f.Int("model_file_size");
  c->n_params = f.Int("n_params");
  c->quant = f.Str("quant");
  c->quant_origin = f.Str("quant_origin");
  c->base_model = f.Str("base_model");
  c->runtime = f.Str("runtime");
  c->runtime_version = f.Str("runtime_version");
  c->device = f.Str("device");
  c->device_id = f.Str("device_id");
  c->emulated = f.Bool("emulated");
  c->emulated_tier = f.Bool("emulated_tier");
  c->untrusted = f.Str("untrusted");
  if (const json* p = f.Object("params")) c->params = *p;
  const json* set = f.Object("params_set");
  c->params_set = set ? *set : c->params;
  return c;
}

metrics::ResultRow RowOf(Fields& f) {
  metrics::ResultRow row;
  row.test = f.Str("test");
  row.metric = f.Str("metric");
  row.unit = f.Str("unit");
  row.subset = f.Str("subset");
  row.na_reason = f.Str("na");
  row.dataset = f.Str("dataset");
  row.dataset_sha256 = f.Str("dataset_sha256");
  row.value = f.Real("value").value_or(0);
  row.std_error = f.Real("std_error");
  row.ci_low = f.Real("ci_low");
  row.ci_high = f.Real("ci_high");
  row.samples = f.Samples();
  row.summary = stats::Summarize(row.samples);
  return row;
}

Result<JsonRows> Read(std::string_view text, const std::string& file, std::optional<int64_t> run) {
  // Bounded: a report nesting thousands of arrays is refused as it is read, never built.
  auto parsed = ParseJsonBounded(text, file);
  if (!parsed) return parsed.error();
  const json& doc = *parsed;
  const auto schema = doc.is_object() ? doc.find("schema") : doc.end();
  if (!doc.is_object() || schema == doc.end() || *schema != "pipette.report") {
    return InputError(file +
                      ": not a Pipette JSON report (its \"schema\" is not \"pipette.report\")");
  }
  const auto v = doc.find("schema_version");
  const int64_t version = v != doc.end() && v->is_number_integer() ? v->get<int64_t>() : 0;
  if (v == doc.end() || !v->is_number_integer()) {
    return InputError(fmt::format(
        "{}: not a Pipette JSON report as this Pipette reads it: its \"schema_version\" is not a "
        "whole number",
        file));
  }
  if (version < 2 || version > kJsonSchemaVersion) {
    return InputError(fmt::format(
        "{}: report schema version {}; this Pipette reads versions 2 to {} (make the report again "
        "with this Pipette: pipette report --store STORE --format json)",
        file, version, kJsonSchemaVersion));
  }
  // A reference, never a copy: what the report holds is walked in place.
  const auto found = doc.find("results");
  if (found == doc.end() || !found->is_array()) {
    return InputError(file + ": the report has no \"results\" array");
  }
  const json& results = *found;
  JsonRows out;
  if (run) {
    out.run_id = *run;
  } else {
    for (const json& r : results) {
      if (!r.is_object()) continue;
      const auto id = r.find("run_id");
      if (id != r.end() && id->is_number_integer()) {
        out.run_id = std::max(out.run_id, id->get<int64_t>());
      }
    }
  }
  std::map<int64_t, std::shared_ptr<const metrics::CellFacts>> cells;
  for (size_t index = 0; index < results.size(); ++index) {
    const json& r = results[index];
    if (!r.is_object() || !r.contains("run_id") || !r.contains("cell") || !r.contains("test") ||
        !r.contains("metric") || !r["run_id"].is_number_integer() ||
        !r["cell"].is_number_integer()) {
      return InputError(
          fmt::format("{}: results[{}] is not a result (run_id, cell, test, metric)", file, index));
    }
    if (r["run_id"].get<int64_t>() != out.run_id) continue;
    Fields f(r, file, index);
    const int64_t cell = r["cell"].get<int64_t>();
    // Every row's cell fields are read (and type-checked); the cell's first row's are kept.
    auto facts = CellOf(f, out.run_id, cell);
    if (!cells[cell]) cells[cell] = std::move(facts);
    metrics::ResultRow row = RowOf(f);
    if (f.error()) return *f.error();
    row.cell = cells[cell];
    out.rows.push_back(std::move(row));
  }
  const auto runs = doc.find("runs");
  if (runs != doc.end() && runs->is_array()) {
    for (const json& r : *runs) {
      if (!r.is_object()) continue;
      const auto id = r.find("id");
      if (id == r.end() || !id->is_number_integer() || id->get<int64_t>() != out.run_id) continue;
      const auto interleaved = r.find("interleaved");
      if (interleaved != r.end() && interleaved->is_boolean()) {
        out.interleaved = interleaved->get<bool>();
      }
      const auto resumes = r.find("resumes");
      if (resumes != r.end() && resumes->is_number_integer()) {
        out.resumes = resumes->get<int64_t>();
      }
    }
  }
  if (cells.empty()) {
    return InputError(run ? fmt::format("{}: no result of run {}", file, *run)
                          : file + ": the report holds no result");
  }
  return out;
}

}  // namespace

Result<JsonRows> RowsFromReportJson(std::string_view text, const std::string& file,
                                    std::optional<int64_t> run) {
  try {
    return Read(text, file, run);
  } catch (const nlohmann::json::exception& e) {
    // Every field is type-checked where it is read; this is a last guard, never expected.
    return InputError(
        fmt::format("{}: not a Pipette JSON report as this Pipette reads it: {}", file, e.what()));
  }
}

}  // namespace pipette::report
