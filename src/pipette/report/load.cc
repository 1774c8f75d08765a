#include "pipette/report/load.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "pipette/build_info.h"

namespace pipette::report {
namespace {

std::string RunWarning(const store::RunRecord& run) {
  const std::string who = env::ProcessIdentity::FromJson(run.controller).Describe();
  if (run.status == "running") return fmt::format("run {} is still running ({})", run.id, who);
  if (run.status == store::kRunningElsewhere) {
    return fmt::format(
        "run {} is recorded as running by {}: this machine cannot tell whether it "
        "still is",
        run.id, who);
  }
  if (run.status == "abandoned") {
    return fmt::format(
        "run {} was abandoned: its controller ({}) ended without finishing it; "
        "pipette run --resume {} measures what it left",
        run.id, who, run.id);
  }
  if (run.status == "interrupted") {
    return fmt::format(
        "run {} was interrupted (Ctrl-C or SIGTERM); pipette run --resume {} "
        "measures the rest",
        run.id, run.id);
  }
  if (run.status == "failed") {
    return fmt::format("run {} ended early on an error of the store", run.id);
  }
  return "";
}

}  // namespace

Result<ReportData> LoadReportData(store::Store& store, const std::vector<int64_t>& run_ids,
                                  const env::ProcessTable* processes) {
  ReportData data;
  data.store_path = store.path();
  data.generated_at = store::NowIso8601();
  data.pipette_version = kPipetteVersion;
  data.warnings = store.warnings();
  for (int64_t id : run_ids) {
    auto run = store.Run(id);
    if (!run) return run.error();
    if (processes) run->status = store::LiveStatus(*run, *processes, store.path());
    auto env = store.Environment(run->environment_id);
    if (!env) return env.error();
    if (std::none_of(data.environments.begin(), data.environments.end(),
                     [&](const auto& e) { return e.id == env->id; })) {
      data.environments.push_back(*env);
    }
    auto cells = store.Cells(id);
    if (!cells) return cells.error();
    // Cells, samples and rows are moved, never copied: on a run of many samples the copies of
    // their JSON cost as much as parsing it.
    std::vector<metrics::CellSamples> with_samples;
    with_samples.reserve(cells->size());
    for (auto& c : *cells) {
      if (run->status == "abandoned" && c.status == "running") {
        c.status = "abandoned";
        if (c.error.empty()) c.error = "its controller ended without finishing it";
      }
      auto samples = store.Samples(c.id);
      if (!samples) return samples.error();
      with_samples.push_back({std::move(c), std::move(*samples)});
    }
    if (const std::string w = RunWarning(*run); !w.empty()) data.warnings.push_back(w);
    for (const auto& [c, samples] : with_samples) {
      const auto others = c.conditions.value("other_pipette", nlohmann::json::array());
      if (c.status == "superseded" || !others.is_array() || others.empty()) continue;
      std::string list;
      for (const auto& o : others) {
        list += fmt::format("{}pid {} {}", list.empty() ? "" : ", ", o.value("pid", 0),
                            o.value("program", ""));
      }
      data.warnings.push_back(fmt::format(
          "run {} cell {} was measured while another Pipette was measuring on this machine ({}): "
          "its speed and memory figures are not to be trusted",
          run->id, c.index + 1, list));
    }
    auto rows = metrics::DeriveRows(*run, *env, with_samples);
    auto items = metrics::DeriveMcItems(*run, with_samples, rows);
    for (auto& c : with_samples) data.cells.push_back(std::move(c.cell));
    data.rows.insert(data.rows.end(), std::make_move_iterator(rows.begin()),
                     std::make_move_iterator(rows.end()));
    data.mc_items.insert(data.mc_items.end(), std::make_move_iterator(items.begin()),
                         std::make_move_iterator(items.end()));
    data.runs.push_back(std::move(*run));
  }
  return data;
}

}  // namespace pipette::report
