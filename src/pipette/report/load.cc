#include "pipette/report/load.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include "pipette/build_info.h"
#include "pipette/metrics/row_cache.h"
#include "pipette/util/json_read.h"
#include "pipette/util/shell_quote.h"

namespace pipette::report {
namespace {

// A run's warning; a command it suggests names the store, quoted for the shell.
std::string RunWarning(const store::RunRecord& run, const std::string& store_path) {
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
        "pipette run --resume {} --store {} measures what it left",
        run.id, who, run.id, ShellQuote(store_path));
  }
  if (run.status == "interrupted") {
    return fmt::format(
        "run {} was interrupted (Ctrl-C or SIGTERM); pipette run --resume {} --store {} "
        "measures the rest",
        run.id, run.id, ShellQuote(store_path));
  }
  if (run.status == "failed") {
    return fmt::format("run {} ended early on an error of the store", run.id);
  }
  return "";
}

// The rows of a run's cells, in cell order: a finished cell's cached rows where they are current
// (metrics::CachedRows), every other cell's derived live from its samples, exactly as
// metrics::DeriveRows derives them from the whole run. A cell derived live may read other cells'
// samples (its load cell's load sample; a kld or divergence reference): those are read too.
// The multiple-choice items (never cached) are appended to `mc_items`.
Result<std::vector<metrics::ResultRow>> DeriveRunRows(
    store::Store& store, const store::RunRecord& run, const store::EnvironmentRecord& env,
    const metrics::Environments& envs, std::vector<store::CellRecord>& cells,
    const metrics::RowDerivers& derivers, const LoadOptions& options,
    std::vector<metrics::McItemRow>* mc_items) {
  std::map<int64_t, store::DerivedRecord> derived;
  std::map<int64_t, store::SampleCount> counts;
  if (options.derived_cache) {
    auto d = store.DerivedOfRun(run.id);
    if (!d) return d.error();
    derived = std::move(*d);
    if (!derived.empty()) {
      auto n = store.SampleCountsOfRun(run.id);
      if (!n) return n.error();
      counts = std::move(*n);
    }
  }
  const size_t n = cells.size();
  std::vector<std::optional<std::vector<metrics::ResultRow>>> cached(n);
  for (size_t i = 0; i < n; ++i) {
    if (cells[i].status == "superseded") continue;
    if (auto it = derived.find(cells[i].id); it != derived.end()) {
      cached[i] = metrics::CachedRows(it->second, counts, run,
                                      metrics::EnvironmentOf(cells[i], env, &envs), cells[i]);
    }
  }
  // The samples of every cell derived live, then of the cells those read.
  std::vector<std::optional<std::vector<store::SampleRecord>>> samples(n);
  bool read_every_cell = false;
  std::set<int64_t> read_also;
  for (size_t i = 0; i < n; ++i) {
    if (cached[i] || cells[i].status == "superseded") continue;
    auto s = store.Samples(cells[i].id);
    if (!s) return s.error();
    samples[i] = std::move(*s);
    if (cells[i].load_cell_id) read_also.insert(*cells[i].load_cell_id);
    read_every_cell = read_every_cell || metrics::ReadsOtherCells(*samples[i], derivers);
  }
  for (size_t i = 0; i < n; ++i) {
    if (samples[i] || !(read_every_cell || read_also.contains(cells[i].id))) continue;
    auto s = store.Samples(cells[i].id);
    if (!s) return s.error();
    samples[i] = std::move(*s);
  }
  // Cells and samples are moved, never copied: on a run of many samples the copies of their
  // JSON cost as much as parsing it.
  std::vector<metrics::CellSamples> live;
  std::vector<size_t> live_index;
  for (size_t i = 0; i < n; ++i) {
    if (!samples[i]) continue;
    live.push_back({std::move(cells[i]), std::move(*samples[i])});
    live_index.push_back(i);
  }
  std::vector<metrics::ResultRow> live_rows = metrics::DeriveRows(run, env, live, derivers, &envs);
  std::vector<metrics::McItemRow> items = metrics::DeriveMcItems(run, live, live_rows);
  mc_items->insert(mc_items->end(), std::make_move_iterator(items.begin()),
                   std::make_move_iterator(items.end()));
  for (size_t k = 0; k < live.size(); ++k) cells[live_index[k]] = std::move(live[k].cell);
  std::map<int64_t, std::vector<metrics::ResultRow>> live_of_cell;
  for (auto& r : live_rows) live_of_cell[r.cell->cell_id].push_back(std::move(r));
  std::vector<metrics::ResultRow> rows;
  for (size_t i = 0; i < n; ++i) {
    std::vector<metrics::ResultRow>* from = nullptr;
    if (cached[i]) {
      from = &*cached[i];
    } else if (auto it = live_of_cell.find(cells[i].id); it != live_of_cell.end()) {
      from = &it->second;
    }
    if (!from) continue;
    rows.insert(rows.end(), std::make_move_iterator(from->begin()),
                std::make_move_iterator(from->end()));
  }
  return rows;
}

}  // namespace

Result<ReportData> LoadReportData(store::Store& store, const std::vector<int64_t>& run_ids,
                                  const metrics::RowDerivers& derivers,
                                  const env::ProcessTable* processes, LoadOptions options) {
  ReportData data;
  data.store_path = store.path();
  data.generated_at = store::NowIso8601();
  data.pipette_version = kPipetteVersion;
  data.warnings = store.warnings();
  for (size_t i = 0; i < run_ids.size(); ++i) {
    // Twice would show every cell of the run twice and count it twice in every figure.
    if (std::find(run_ids.begin(), run_ids.begin() + long(i), run_ids[i]) !=
        run_ids.begin() + long(i)) {
      return InputError(fmt::format("run {} is given twice: each run is read once ({})", run_ids[i],
                                    store.path()));
    }
  }
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
    // Cells measured on another device than the run's own name their environment.
    metrics::Environments envs;
    for (const auto& c : *cells) {
      if (!c.environment_id || *c.environment_id == env->id || envs.contains(*c.environment_id)) {
        continue;
      }
      auto other = store.Environment(*c.environment_id);
      if (!other) continue;  // not there: the run's own, as before devices
      envs[other->id] = *other;
      if (std::none_of(data.environments.begin(), data.environments.end(),
                       [&](const auto& e) { return e.id == other->id; })) {
        data.environments.push_back(*other);
      }
    }
    for (auto& c : *cells) {
      if (run->status == "abandoned" && c.status == "running") {
        c.status = "abandoned";
        if (c.error.empty()) c.error = "its controller ended without finishing it";
      }
    }
    auto rows = DeriveRunRows(store, *run, *env, envs, *cells, derivers, options, &data.mc_items);
    if (!rows) return rows.error();
    if (const std::string w = RunWarning(*run, store.path()); !w.empty())
      data.warnings.push_back(w);
    for (const auto& c : *cells) {
      const auto others = c.conditions.value("other_pipette", nlohmann::json::array());
      if (c.status == "superseded" || !others.is_array() || others.empty()) continue;
      std::string list;
      for (const auto& o : others) {
        list += fmt::format("{}pid {} {}", list.empty() ? "" : ", ",
                            json_read::Int(o, "pid").value_or(0), json_read::String(o, "program"));
      }
      data.warnings.push_back(fmt::format(
          "run {} cell {} was measured while another Pipette was measuring on this machine ({}): "
          "its speed and memory figures are not to be trusted",
          run->id, c.index + 1, list));
    }
    data.cells.insert(data.cells.end(), std::make_move_iterator(cells->begin()),
                      std::make_move_iterator(cells->end()));
    data.rows.insert(data.rows.end(), std::make_move_iterator(rows->begin()),
                     std::make_move_iterator(rows->end()));
    data.runs.push_back(std::move(*run));
  }
  return data;
}

}  // namespace pipette::report
