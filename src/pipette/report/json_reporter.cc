#include "pipette/report/json_reporter.h"

namespace pipette::report {

namespace {
nlohmann::ordered_json Nullable(const std::string& s) {
  return s.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(s);
}
}  // namespace

void JsonReporter::Write(const ReportData& data, std::ostream& out) const {
  using json = nlohmann::ordered_json;  // fields in the documented order
  json doc;
  doc["schema"] = "pipette.report";
  doc["schema_version"] = kJsonSchemaVersion;
  doc["generated_at"] = data.generated_at;
  doc["pipette_version"] = data.pipette_version;
  doc["store"] = data.store_path;
  doc["warnings"] = data.warnings;
  doc["runs"] = json::array();
  for (const auto& r : data.runs) {
    doc["runs"].push_back({{"id", r.id},
                           {"name", r.name},
                           {"experiment", r.experiment_path},
                           {"config_hash", r.config_hash},
                           {"pipette_version", r.pipette_version},
                           {"pipette_commit", r.pipette_commit},
                           {"environment_id", r.environment_id},
                           {"started_at", r.started_at},
                           {"finished_at", Nullable(r.finished_at)},
                           {"status", r.status},
                           {"n_cells", r.n_cells},
                           {"resumes", r.resumes},
                           {"only", r.only},
                           {"controller", json(r.controller)},
                           {"lock", json(r.lock)}});
  }
  doc["environments"] = json::array();
  for (const auto& e : data.environments) {
    doc["environments"].push_back(
        {{"id", e.id}, {"fingerprint_id", e.fingerprint_id}, {"facts", json(e.facts)}});
  }
  doc["cells"] = json::array();
  for (const auto& c : data.cells) {
    doc["cells"].push_back({{"run_id", c.run_id},
                            {"cell", c.index + 1},
                            {"key", c.key},
                            {"status", c.status},
                            {"error", c.error},
                            {"stderr_tail", c.stderr_tail},
                            {"conditions", json(c.conditions)},
                            {"runtime_build", json(c.runtime_build)},
                            {"model_provenance", c.model_info.value("provenance", json())},
                            {"started_at", c.started_at},
                            {"finished_at", Nullable(c.finished_at)},
                            {"environment_id", c.environment_id ? json(*c.environment_id) : json()},
                            {"superseded_by", c.superseded_by ? json(*c.superseded_by) : json()}});
  }
  doc["results"] = json::array();
  for (const auto& r : data.rows) {
    doc["results"].push_back(
        {{"run_id", r.run_id},
         {"cell", r.cell_index + 1},
         {"cell_status", r.cell_status},
         {"model", r.model},
         {"model_sha256", r.model_sha256},
         {"model_file_size", r.model_file_size},
         {"n_params", r.n_params},
         {"quant", r.quant},
         {"quant_origin", r.quant_origin},
         {"base_model", r.base_model},
         {"runtime", r.runtime},
         {"runtime_version", r.runtime_version},
         {"runtime_build", json(r.runtime_build)},
         {"device", r.device},
         {"device_id", r.device_id},
         {"params", json(r.params)},
         {"params_set", json(r.params_set)},
         {"test", r.test},
         {"metric", r.metric},
         {"unit", r.unit},
         {"value", r.na_reason.empty() ? json(r.value) : json()},
         {"std_error", r.std_error ? json(*r.std_error) : json()},
         {"ci_low", r.ci_low ? json(*r.ci_low) : json()},
         {"ci_high", r.ci_high ? json(*r.ci_high) : json()},
         {"subset", r.subset},
         {"na", r.na_reason.empty() ? json() : json(r.na_reason)},
         {"dataset", r.dataset.empty() ? json() : json(r.dataset)},
         {"dataset_sha256", r.dataset_sha256.empty() ? json() : json(r.dataset_sha256)},
         {"chat_template", json(r.chat_template)},
         {"median", r.summary.median},
         {"min", r.summary.min},
         {"max", r.summary.max},
         {"mean", r.summary.mean},
         {"stddev", r.summary.stddev},
         {"cv", r.summary.cv},
         {"n", r.summary.n},
         {"noisy", r.summary.noisy},
         {"samples", r.samples}});
  }
  doc["mc_items"] = json::array();
  for (const auto& m : data.mc_items) {
    json choices = json::array();
    for (const auto& c : m.choices) {
      choices.push_back({{"logprob", c.logprob}, {"n_tokens", c.n_tokens}, {"bytes", c.bytes}});
    }
    doc["mc_items"].push_back({{"run_id", m.run_id},
                               {"cell", m.cell_index + 1},
                               {"model", m.model},
                               {"quant", m.quant},
                               {"item", m.item},
                               {"id", m.id},
                               {"language", m.language},
                               {"task_type", m.task_type},
                               {"answer", m.answer},
                               {"chosen", m.pick.chosen},
                               {"chosen_norm", m.pick.chosen_norm},
                               {"correct", m.correct},
                               {"correct_norm", m.correct_norm},
                               {"choices", choices}});
  }
  out << doc.dump(2) << "\n";
}

}  // namespace pipette::report
