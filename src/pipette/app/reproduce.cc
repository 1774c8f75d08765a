#include "pipette/app/reproduce.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>
#include <regex>
#include <sstream>

#include "pipette/env/process.h"
#include "pipette/report/command_output.h"
#include "pipette/report/load.h"
#include "pipette/reproduce/reproduce.h"
#include "pipette/reproduce/view.h"
#include "pipette/store/store.h"
#include "pipette/util/files.h"
#include "pipette/util/shell_quote.h"
#include "pipette/workload/registry.h"

namespace pipette::app {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A file removed when it goes out of scope, whatever happened meanwhile.
struct RemovedAtEnd {
  std::string path;
  ~RemovedAtEnd() {
    std::error_code ec;
    if (!path.empty()) fs::remove(path, ec);
  }
};

// The pid in the name of an experiment file ExperimentFile wrote (".NAME.reproduce-RUN-PID.yaml").
std::optional<int> ReproduceFilePid(const std::string& name) {
  static const std::regex kName(R"(^\..*\.reproduce-[0-9]+-([0-9]{1,9})\.yaml$)");
  std::smatch m;
  if (!std::regex_match(name, m, kName)) return std::nullopt;
  return std::stoi(m[1].str());
}

// The experiment file to run again: the stored run's own file if it still holds the stored text,
// else the stored text written beside where it was (its models' and datasets' relative paths
// resolve from there), removed afterwards; those a killed reproduce left there are removed first.
Result<std::string> ExperimentFile(const store::RunRecord& run, RemovedAtEnd* temp,
                                   const env::ProcessTable& processes) {
  const fs::path path = run.experiment_path;
  if (auto text = ReadFileToString(path.string()); text && *text == run.config_text) {
    return path.string();
  }
  std::error_code ec;
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  if (!fs::is_directory(dir, ec)) {
    return InputError(fmt::format(
        "run {} was made from {}, whose folder is not there now: the experiment's relative paths "
        "(models, datasets) resolve from it",
        run.id, path.string()));
  }
  const fs::path written =
      dir / fmt::format(".{}.reproduce-{}-{}.yaml", path.stem().string(), run.id, getpid());
  (void)RemoveLeftovers(dir.string(), ReproduceFilePid,
                        [&](int pid) { return processes.Exists(pid); });
  if (auto st = WriteOutput(written.string(), run.config_text, processes); !st) return st.error();
  temp->path = written.string();
  fmt::print(stderr, "note: {} has changed since run {}: running the experiment as stored\n",
             path.string(), run.id);
  return written.string();
}

// The run's environment as reproduce::Check reads it: its fingerprint, the Pipette that ran it,
// the experiment's hash, the largest load its cells started under, and how many of its cells were
// measured while another Pipette measured or after the readiness gate refused the device.
json EnvironmentOf(const report::ReportData& data, const store::RunRecord& run) {
  json env = json::object();
  for (const auto& e : data.environments) {
    if (e.id == run.environment_id && e.facts.is_object()) env = e.facts;
  }
  env["pipette"] = fmt::format("{} ({})", run.pipette_version, run.pipette_commit);
  env["config_hash"] = run.config_hash;
  std::optional<double> load;
  // The cells measured under a warning that makes their figures untrustworthy: while another
  // Pipette measured, or after the readiness gate found the device not ready.
  int64_t other_pipette = 0, not_ready = 0;
  for (const auto& c : data.cells) {
    if (c.run_id != run.id || !c.conditions.is_object() || c.status == "superseded") continue;
    const auto it = c.conditions.find("load_avg_1");
    if (it != c.conditions.end() && it->is_number()) {
      load = std::max(load.value_or(0.0), it->get<double>());
    }
    const auto others = c.conditions.find("other_pipette");
    if (others != c.conditions.end() && others->is_array() && !others->empty()) ++other_pipette;
    if (c.conditions.contains("not_ready")) ++not_ready;
  }
  if (load) env["load_avg_1"] = *load;
  env["other_pipette_cells"] = other_pipette;
  env["not_ready_cells"] = not_ready;
  return env;
}

Result<report::ReportData> Load(const std::string& store_path, const std::vector<int64_t>& runs) {
  auto store = store::Store::Open(store_path, store::OpenMode::kReadOnly);
  if (!store) return store.error();
  env::LinuxProcessTable processes;
  return report::LoadReportData(**store, runs, workload::Derivers(), &processes);
}

}  // namespace

int Reproduce(const ReproduceArgs& args, const Paths& paths, device::Device& device) {
  if (auto st = report::CheckCommandFormat("reproduce", args.format); !st) {
    return Fail(st.error());
  }
  if (args.run < 1) {
    return Fail(
        InputError(fmt::format("run {}: a run id is 1 or more (pipette report --all "
                               "lists them)",
                               args.run)));
  }
  std::error_code ec;
  if (!fs::exists(args.store, ec)) {
    return Fail(InputError(fmt::format("{}: no such store", args.store)));
  }
  auto before = Load(args.store, {args.run});
  if (!before) return Fail(before.error());
  if (before->runs.empty()) {
    return Fail(InputError(fmt::format("{}: no run {} (pipette report --store {} --all lists them)",
                                       args.store, args.run, ShellQuote(args.store))));
  }
  const store::RunRecord original = before->runs[0];
  if (original.status == "running") {
    return Fail(InputError(fmt::format("run {} is still running", original.id)));
  }
  if (original.config_text.empty()) {
    return Fail(
        InputError(fmt::format("run {} stored no experiment text to run again", original.id)));
  }
  int64_t latest = 0;
  {
    auto ro = store::Store::Open(args.store, store::OpenMode::kReadOnly);
    if (!ro) return Fail(ro.error());
    auto id = (*ro)->LatestRunId();
    if (!id) return Fail(id.error());
    latest = id->value_or(0);
  }
  // -o never overwrites the store or the run's experiment file (the run again checks the rest).
  std::vector<NamedPath> inputs = StoreFiles("the store", args.store);
  inputs.push_back({"the run's experiment file", original.experiment_path});
  if (auto st = CheckOutputs(inputs, {{"-o", args.output}}); !st) return Fail(st.error());
  env::LinuxProcessTable processes;
  RemovedAtEnd temp;
  auto file = ExperimentFile(original, &temp, processes);
  if (!file) return Fail(file.error());
  fmt::print(stderr, "pipette reproduce: run {} of {} again, from {}\n", original.id, args.store,
             *file);
  RunArgs again;
  again.experiment = *file;
  again.store = args.store;
  again.only = original.only;
  again.interleave = original.interleave;  // measured as it was: in rounds or cell after cell
  again.no_bandwidth = args.no_bandwidth;
  again.no_wait = args.no_wait;
  again.table_to_stderr = true;
  again.other_outputs = {{"-o", args.output}};
  if (const int rc = Run(again, paths, device); rc == 2) return rc;

  // The run this command made: the first after the latest before it, of the file it ran (another
  // Pipette may have written to the store meanwhile).
  int64_t now_id = 0;
  {
    auto ro = store::Store::Open(args.store, store::OpenMode::kReadOnly);
    if (!ro) return Fail(ro.error());
    auto runs = (*ro)->Runs();
    if (!runs) return Fail(runs.error());
    for (const store::RunRecord& r : *runs) {
      if (r.id > latest && r.experiment_path == *file && (now_id == 0 || r.id < now_id)) {
        now_id = r.id;
      }
    }
  }
  if (now_id == 0) {
    return Fail(RuntimeError(fmt::format("the run again stored nothing in {}", args.store)));
  }
  auto after = Load(args.store, {original.id, now_id});
  if (!after) return Fail(after.error());
  std::vector<metrics::ResultRow> rows_a, rows_b;
  for (auto& r : after->rows) (r.cell->run_id == original.id ? rows_a : rows_b).push_back(r);
  const store::RunRecord* now = nullptr;
  for (const auto& r : after->runs) {
    if (r.id == now_id) now = &r;
  }
  if (!now) return Fail(RuntimeError(fmt::format("run {} is not in {}", now_id, args.store)));
  const reproduce::Verdict v =
      reproduce::Check(workload::Figures(), {&rows_a, EnvironmentOf(*after, original)},
                       {&rows_b, EnvironmentOf(*after, *now)});
  const std::string name_a = fmt::format("{} run {}", args.store, original.id);
  const std::string name_b = fmt::format("{} run {}", args.store, now_id);
  std::ostringstream out;
  report::RenderCommandOutput(
      args.format,
      {[&](std::ostream& o) { reproduce::WriteReproduceMarkdown(v, name_a, name_b, o); },
       [&] { return reproduce::ReproduceJson(v, name_a, name_b); },
       [&] { return reproduce::ReproduceTable(v); }},
      out);
  if (args.output.empty()) {
    std::cout << out.str();
  } else {
    if (auto st = WriteOutput(args.output, out.str(), processes); !st) return Fail(st.error());
    fmt::print(stderr, "wrote {}\n", args.output);
  }
  return v.all_reproduced() ? 0 : 1;
}

}  // namespace pipette::app
