#include "pipette/report/document.h"

#include <fmt/format.h>

#include "pipette/metrics/sustained.h"
#include "pipette/report/curves.h"
#include "pipette/report/summary.h"

namespace pipette::report {
namespace {

using json = nlohmann::ordered_json;  // fields in the documented order

Column Col(std::string name, ColumnType type, std::string unit = "") {
  return {std::move(name), type, std::move(unit), Align::kLeft};
}

constexpr ColumnType kText = ColumnType::kText;
constexpr ColumnType kInt = ColumnType::kInteger;
constexpr ColumnType kReal = ColumnType::kReal;
constexpr ColumnType kBool = ColumnType::kBoolean;
constexpr ColumnType kJson = ColumnType::kJson;

}  // namespace

Table RunsTable(const std::vector<store::RunRecord>& runs) {
  Table t;
  t.name = "runs";
  t.columns = {Col("id", kInt),
               Col("name", kText),
               Col("experiment", kText),
               Col("config_hash", kText),
               Col("pipette_version", kText),
               Col("pipette_commit", kText),
               Col("environment_id", kInt),
               Col("started_at", kText),
               Col("finished_at", kText),
               Col("status", kText),
               Col("n_cells", kInt),
               Col("resumes", kInt),
               Col("interleaved", kBool),
               Col("only", kText),
               Col("controller", kJson),
               Col("lock", kJson)};
  for (const auto& r : runs) {
    t.Add({Integer(r.id), Text(r.name), Text(r.experiment_path), Text(r.config_hash),
           Text(r.pipette_version), Text(r.pipette_commit), Integer(r.environment_id),
           Text(r.started_at), TextOrNull(r.finished_at), Text(r.status), Integer(r.n_cells),
           Integer(r.resumes), Boolean(r.interleave), Text(r.only), Json(json(r.controller)),
           Json(json(r.lock))});
  }
  return t;
}

Table EnvironmentsTable(const std::vector<store::EnvironmentRecord>& environments) {
  Table t;
  t.name = "environments";
  t.columns = {Col("id", kInt), Col("fingerprint_id", kText), Col("facts", kJson)};
  for (const auto& e : environments) {
    t.Add({Integer(e.id), Text(e.fingerprint_id), Json(json(e.facts))});
  }
  return t;
}

Table CellsTable(const std::vector<store::CellRecord>& cells) {
  Table t;
  t.name = "cells";
  t.columns = {
      Col("run_id", kInt),       Col("cell", kInt),           Col("key", kText),
      Col("status", kText),      Col("error", kText),         Col("stderr_tail", kText),
      Col("conditions", kJson),  Col("runtime_build", kJson), Col("model_provenance", kJson),
      Col("started_at", kText),  Col("finished_at", kText),   Col("environment_id", kInt),
      Col("superseded_by", kInt)};
  for (const auto& c : cells) {
    t.Add({Integer(c.run_id), Integer(c.index + 1), Text(c.key), Text(c.status), Text(c.error),
           Text(c.stderr_tail), Json(json(c.conditions)), Json(json(c.runtime_build)),
           Json(json(c.model_info.value("provenance", nlohmann::json()))), Text(c.started_at),
           TextOrNull(c.finished_at), IntegerOrNull(c.environment_id),
           IntegerOrNull(c.superseded_by)});
  }
  return t;
}

Table ResultsTable(const std::vector<metrics::ResultRow>& rows) {
  Table t;
  t.name = "results";
  // Figures in the row's own unit (its `unit`) have no unit of the column.
  t.columns = {Col("run_id", kInt),
               Col("cell", kInt),
               Col("cell_status", kText),
               Col("untrusted", kText),
               Col("model", kText),
               Col("model_sha256", kText),
               Col("model_file_size", kInt, "bytes"),
               Col("n_params", kInt),
               Col("quant", kText),
               Col("quant_origin", kText),
               Col("base_model", kText),
               Col("runtime", kText),
               Col("runtime_version", kText),
               Col("runtime_build", kJson),
               Col("device", kText),
               Col("device_id", kText),
               Col("emulated", kBool),
               Col("emulated_tier", kBool),
               Col("params", kJson),
               Col("params_set", kJson),
               Col("test", kText),
               Col("metric", kText),
               Col("unit", kText),
               Col("value", kReal),
               Col("std_error", kReal),
               Col("ci_low", kReal),
               Col("ci_high", kReal),
               Col("subset", kText),
               Col("na", kText),
               Col("dataset", kText),
               Col("dataset_sha256", kText),
               Col("chat_template", kJson),
               Col("median", kReal),
               Col("min", kReal),
               Col("max", kReal),
               Col("mean", kReal),
               Col("stddev", kReal),
               Col("cv", kReal),
               Col("n", kInt),
               Col("noisy", kBool),
               Col("samples", ColumnType::kReals)};
  t.rows.reserve(rows.size());
  for (const auto& r : rows) {
    const bool na = !r.na_reason.empty();
    t.Add({Integer(r.cell->run_id),
           Integer(r.cell->cell_index + 1),
           Text(r.cell->cell_status),
           TextOrNull(r.cell->untrusted),
           Text(r.cell->model),
           Text(r.cell->model_sha256),
           Integer(r.cell->model_file_size),
           Integer(r.cell->n_params),
           Text(r.cell->quant),
           Text(r.cell->quant_origin),
           Text(r.cell->base_model),
           Text(r.cell->runtime),
           Text(r.cell->runtime_version),
           Json(json(r.cell->runtime_build)),
           Text(r.cell->device),
           Text(r.cell->device_id),
           Boolean(r.cell->emulated),
           Boolean(r.cell->emulated_tier),
           Json(json(r.cell->params)),
           Json(json(r.cell->params_set)),
           Text(r.test),
           Text(r.metric),
           Text(r.unit),
           na ? Null() : Real(r.value),
           RealOrNull(r.std_error),
           RealOrNull(r.ci_low),
           RealOrNull(r.ci_high),
           Text(r.subset),
           TextOrNull(r.na_reason),
           TextOrNull(r.dataset),
           TextOrNull(r.dataset_sha256),
           Json(json(r.chat_template)),
           Real(r.summary.median),
           Real(r.summary.min),
           Real(r.summary.max),
           Real(r.summary.mean),
           Real(r.summary.stddev),
           Real(r.summary.cv),
           Integer(int64_t(r.summary.n)),
           Boolean(r.summary.noisy),
           Reals(r.samples)},
          r.summary.noisy);
  }
  return t;
}

Table McItemsTable(const std::vector<metrics::McItemRow>& items) {
  Table t;
  t.name = "mc_items";
  t.columns = {Col("run_id", kInt),        Col("cell", kInt),        Col("model", kText),
               Col("quant", kText),        Col("item", kInt),        Col("id", kText),
               Col("language", kText),     Col("task_type", kText),  Col("answer", kInt),
               Col("chosen", kInt),        Col("chosen_norm", kInt), Col("correct", kBool),
               Col("correct_norm", kBool), Col("choices", kJson)};
  for (const auto& m : items) {
    json choices = json::array();
    for (const auto& c : m.choices) {
      choices.push_back({{"logprob", c.logprob}, {"n_tokens", c.n_tokens}, {"bytes", c.bytes}});
    }
    t.Add({Integer(m.run_id), Integer(m.cell_index + 1), Text(m.model), Text(m.quant),
           Integer(m.item), Text(m.id), Text(m.language), Text(m.task_type), Integer(m.answer),
           Integer(m.pick.chosen), Integer(m.pick.chosen_norm), Boolean(m.correct),
           Boolean(m.correct_norm), Json(std::move(choices))});
  }
  return t;
}

Report BuildReport(const ReportData& data, const runtime::ParamRegistry& params,
                   const metrics::FigureCatalogue& figures, ReportParts parts) {
  Report r;
  r.generated_at = data.generated_at;
  r.pipette_version = data.pipette_version;
  r.store = data.store_path;
  r.warnings = data.warnings;
  // A sustained run whose speed decayed past the flag: said in every format.
  for (const metrics::ResultRow& row : data.rows) {
    if (!figures.Shows(row, metrics::Shown::kDecay) || !row.na_reason.empty()) continue;
    if (!metrics::DecayFlagged(row.summary.median / 100)) continue;
    r.warnings.push_back(fmt::format(
        "cell {} ({} on {}): {} decayed {:.1f}% from its first 10 s window to its last, over the "
        "{:.0f}% flag: the device did not hold its speed (heat, a governor, a battery limit)",
        row.cell->cell_index + 1, row.cell->model, row.cell->device, row.test, row.summary.median,
        metrics::kDecayFlag * 100));
  }
  if (parts != ReportParts::kSummary) {
    r.runs = RunsTable(data.runs);
    r.environments = EnvironmentsTable(data.environments);
    r.cells = CellsTable(data.cells);
    r.results = ResultsTable(data.rows);
    r.mc_items = McItemsTable(data.mc_items);
  }
  r.summary = SummaryTable(data.rows, params, figures);
  for (Table curve : {ContextGrowthTable(data.rows, figures), SustainedTable(data.rows, figures)}) {
    if (!curve.rows.empty() || !curve.footnotes.empty()) r.curves.push_back(std::move(curve));
  }
  r.incomplete = IncompleteCells(data.cells);
  if (parts == ReportParts::kPage) r.page = BuildPage(data, r.curves, params, figures);
  return r;
}

}  // namespace pipette::report
