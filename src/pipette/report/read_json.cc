#include "pipette/report/read_json.h"

#include <fmt/format.h>

#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "pipette/report/data.h"

namespace pipette::report {
namespace {

using nlohmann::json;

std::string Str(const json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<double> Real(const json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

}  // namespace

namespace {

Result<JsonRows> Read(std::string_view text, const std::string& file, std::optional<int64_t> run) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) return InputError(file + ": not JSON");
  if (!doc.is_object() || doc.value("schema", "") != "pipette.report") {
    return InputError(file +
                      ": not a Pipette JSON report (its \"schema\" is not \"pipette.report\")");
  }
  const int version = doc.value("schema_version", 0);
  if (version < 2 || version > kJsonSchemaVersion) {
    return InputError(fmt::format(
        "{}: report schema version {}; this Pipette reads versions 2 to {} (make the report again "
        "with this Pipette: pipette report --store STORE --format json)",
        file, version, kJsonSchemaVersion));
  }
  const json& results = doc.contains("results") ? doc["results"] : json();
  if (!results.is_array()) return InputError(file + ": the report has no \"results\" array");
  JsonRows out;
  if (run) {
    out.run_id = *run;
  } else {
    for (const json& r : results) {
      if (r.is_object()) out.run_id = std::max(out.run_id, r.value("run_id", int64_t{0}));
    }
  }
  std::map<int64_t, std::shared_ptr<const metrics::CellFacts>> cells;
  size_t index = 0;
  for (const json& r : results) {
    ++index;
    if (!r.is_object() || !r.contains("run_id") || !r.contains("cell") || !r.contains("test") ||
        !r.contains("metric") || !r["run_id"].is_number_integer() ||
        !r["cell"].is_number_integer()) {
      return InputError(fmt::format("{}: results[{}] is not a result (run_id, cell, test, metric)",
                                    file, index - 1));
    }
    if (r["run_id"].get<int64_t>() != out.run_id) continue;
    const int64_t cell = r["cell"].get<int64_t>();
    auto& facts = cells[cell];
    if (!facts) {
      auto c = std::make_shared<metrics::CellFacts>();
      c->run_id = out.run_id;
      c->cell_index = static_cast<int>(cell) - 1;
      c->cell_status = Str(r, "cell_status");
      c->model = Str(r, "model");
      c->model_sha256 = Str(r, "model_sha256");
      c->model_file_size = r.value("model_file_size", int64_t{0});
      c->n_params = r.value("n_params", int64_t{0});
      c->quant = Str(r, "quant");
      c->quant_origin = Str(r, "quant_origin");
      c->base_model = Str(r, "base_model");
      c->runtime = Str(r, "runtime");
      c->runtime_version = Str(r, "runtime_version");
      c->device = Str(r, "device");
      c->device_id = Str(r, "device_id");
      c->emulated = r.value("emulated", false);
      c->emulated_tier = r.value("emulated_tier", false);
      if (r.contains("params") && r["params"].is_object()) c->params = r["params"];
      c->params_set =
          r.contains("params_set") && r["params_set"].is_object() ? r["params_set"] : c->params;
      facts = std::move(c);
    }
    metrics::ResultRow row;
    row.cell = facts;
    row.test = Str(r, "test");
    row.metric = Str(r, "metric");
    row.unit = Str(r, "unit");
    row.subset = Str(r, "subset");
    row.na_reason = Str(r, "na");
    row.dataset = Str(r, "dataset");
    row.dataset_sha256 = Str(r, "dataset_sha256");
    row.value = Real(r, "value").value_or(0);
    row.std_error = Real(r, "std_error");
    row.ci_low = Real(r, "ci_low");
    row.ci_high = Real(r, "ci_high");
    if (r.contains("samples") && r["samples"].is_array()) {
      for (const json& s : r["samples"]) {
        if (s.is_null()) {  // a sample that was not a finite number (JSON has no NaN)
          row.samples.push_back(std::numeric_limits<double>::quiet_NaN());
          continue;
        }
        if (!s.is_number()) {
          return InputError(fmt::format(
              "{}: results[{}].samples holds a value that is not a number", file, index - 1));
        }
        row.samples.push_back(s.get<double>());
      }
    }
    row.summary = stats::Summarize(row.samples);
    out.rows.push_back(std::move(row));
  }
  if (doc.contains("runs") && doc["runs"].is_array()) {
    for (const json& r : doc["runs"]) {
      if (!r.is_object() || r.value("id", int64_t{0}) != out.run_id) continue;
      if (r.contains("interleaved") && r["interleaved"].is_boolean()) {
        out.interleaved = r["interleaved"].get<bool>();
      }
      if (r.contains("resumes") && r["resumes"].is_number_integer()) {
        out.resumes = r["resumes"].get<int64_t>();
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
    // A field of the wrong type (a schema_version given as text, a null where a number goes).
    return InputError(
        fmt::format("{}: not a Pipette JSON report as this Pipette reads it: {}", file, e.what()));
  }
}

}  // namespace pipette::report
