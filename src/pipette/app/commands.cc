#include "pipette/app/commands.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "pipette/app/console_progress.h"
#include "pipette/app/model_facts.h"
#include "pipette/app/variants.h"
#include "pipette/build_info.h"
#include "pipette/config/experiment.h"
#include "pipette/env/fingerprint.h"
#include "pipette/metrics/vary.h"
#include "pipette/model/gguf.h"
#include "pipette/plan/estimate.h"
#include "pipette/plan/plan.h"
#include "pipette/report/load.h"
#include "pipette/report/reporter.h"
#include "pipette/run/runner.h"
#include "pipette/store/store.h"
#include "pipette/util/files.h"
#include "pipette/util/sha256.h"
#include "pipette/util/strings.h"

namespace pipette::app {
namespace fs = std::filesystem;

namespace {

// The one piece of process-wide state: a signal handler can only reach a global.

int Fail(const Error& e) {
  fmt::print(stderr, "error: {}\n", e.message);
  return e.exit_code;
}

std::string ExeDir(const std::string& argv0) {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) exe = fs::absolute(argv0);
  return exe.parent_path().string();
}

void PrintPlan(const config::Experiment& ex, const std::vector<plan::Cell>& cells,
               const config::ParamRegistry& registry) {
  fmt::print("{}: {} cell(s) x {} test(s), {} warm-up + {} repetitions each\n", ex.path,
             cells.size(), ex.tests.size(), ex.warmup, ex.repetitions);
  std::string last_load;
  int loads = 0;
  for (const auto& c : cells) {
    const std::string lk = c.LoadKey(registry);
    const bool load = lk != last_load;
    loads += load;
    last_load = lk;
    fmt::print("  {:>4}  {}{}\n", c.index + 1, c.Key(), load ? "  [loads model]" : "");
  }
  std::string tests;
  for (const auto& t : ex.tests) tests += " " + t.name;
  fmt::print("tests:{}\nmodel loads: {}\n", tests, loads);
}

// Progress on the console, plus the --export-* files rewritten after every cell.
class ExportingProgress : public ConsoleProgress {
 public:
  ExportingProgress(store::Store* store, const RunArgs& args)
      : ConsoleProgress(stderr), store_(store) {
    if (!args.export_md.empty()) exports_.push_back({"md", args.export_md});
    if (!args.export_csv.empty()) exports_.push_back({"csv", args.export_csv});
    if (!args.export_json.empty()) exports_.push_back({"json", args.export_json});
  }
  void CellFinished(const plan::Cell& cell, int n_cells, const store::CellRecord& rec) override {
    ConsoleProgress::CellFinished(cell, n_cells, rec);
    if (auto st = Export(rec.run_id); !st) fmt::print(stderr, "warning: {}\n", st.error().message);
  }
  Status Export(int64_t run_id) {
    if (exports_.empty()) return {};
    auto data = report::LoadReportData(*store_, {run_id});
    if (!data) return data.error();
    for (const auto& [format, path] : exports_) {
      auto reporter = report::MakeReporter(format);
      if (!reporter) return reporter.error();
      std::ostringstream out;
      (*reporter)->Write(*data, out);
      if (auto st = WriteFileAtomically(path, out.str()); !st) return st;
    }
    return {};
  }
  const std::vector<std::pair<std::string, std::string>>& exports() const { return exports_; }

 private:
  store::Store* store_;
  std::vector<std::pair<std::string, std::string>> exports_;
};

// hyperfine-style advice: say what is wrong and what to do next.
void WarnIfNoisy(const report::ReportData& data, const std::string& experiment) {
  int noisy = 0, headline = 0;
  for (const auto& r : data.rows) {
    if (!metrics::IsHeadline(r)) continue;
    ++headline;
    noisy += r.summary.noisy;
  }
  if (noisy == 0) return;
  double max_load = 0;
  for (const auto& c : data.cells) {
    max_load = std::max(max_load, c.conditions.value("load_avg_1", 0.0));
  }
  fmt::print(stderr,
             "\nwarning: {} of {} figures are noisy (CV above 5%). Close other programs, or raise "
             "warmup: and repetitions: in {}.",
             noisy, headline, experiment);
  if (max_load >= 0.5) {
    fmt::print(stderr,
               " The load average was up to {:.1f} when cells started: something else "
               "was running.",
               max_load);
  }
  fmt::print(stderr, "\n");
}

}  // namespace

std::optional<Error> CheckCommand(std::string_view first,
                                  const std::vector<std::string>& commands) {
  if (first.starts_with('-') ||
      std::find(commands.begin(), commands.end(), first) != commands.end()) {
    return std::nullopt;
  }
  std::string list;
  for (const auto& c : commands) list += (list.empty() ? "" : ", ") + c;
  return InputError(fmt::format("unknown command '{}'{} (commands: {})", first,
                                DidYouMean(first, commands), list));
}

namespace {
// The one piece of process-wide state: a signal handler can only reach a global.
std::atomic<bool> g_stop{false};
extern "C" void OnSignal(int) { g_stop.store(true); }
}  // namespace

const std::atomic<bool>* StopOnSignals() {
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  return &g_stop;
}

Paths DefaultPaths(const std::string& argv0) {
  const std::string exe_dir = ExeDir(argv0);
  Paths p;
  const char* m = std::getenv("PIPETTE_MODELS_DIR");
  p.models_dir = m && *m ? m : (fs::path(exe_dir) / ".." / "models").lexically_normal().string();
  const char* w = std::getenv("PIPETTE_WORKERS_DIR");
  p.workers_dir = w && *w ? w : exe_dir;
  const char* d = std::getenv("PIPETTE_DATASETS_DIR");
  p.datasets_dir =
      d && *d ? d : (fs::path(exe_dir) / ".." / "datasets").lexically_normal().string();
  const char* v = std::getenv("PIPETTE_VARIANTS_DIR");
  p.variants_dir = v && *v ? v : (fs::path(p.models_dir) / "variants").string();
  return p;
}

int Run(const RunArgs& args, const Paths& paths) {
  const config::ParamRegistry registry = config::ParamRegistry::Default();
  auto ex = config::LoadExperiment(
      args.experiment, registry,
      {paths.models_dir, paths.workers_dir, paths.datasets_dir, paths.variants_dir});
  if (!ex) return Fail(ex.error());
  auto cells = plan::Expand(*ex, registry);
  if (!cells) return Fail(cells.error());
  if (!args.only.empty()) {
    // The kld and divergence reference runs with any narrowed plan: the others need it.
    const std::string reference = ex->kld                    ? ex->kld->reference
                                  : ex->divergence_reference ? *ex->divergence_reference
                                                             : "";
    cells = plan::Narrow(*cells, args.only, registry, reference);
    if (!cells) return Fail(cells.error());
  }
  WarnRequantized(*ex);
  if (args.dry_run) {
    PrintPlan(*ex, *cells, registry);
    worker::ProcessLauncher quantizer;
    PrintVariantPlan(*ex, *cells, quantizer);
    // A time estimate from what the store measured before, if there is a store (read only:
    // a dry run writes nothing).
    const std::string store_path = args.store.empty() ? ex->store : args.store;
    std::error_code ec;
    if (fs::exists(store_path, ec)) {
      auto store = store::Store::Open(store_path);
      if (store) {
        auto recent = (*store)->RecentSamples(20000);
        if (recent) {
          const plan::Estimate e = plan::EstimateRun(*ex, *cells, metrics::BuildHistory(*recent));
          fmt::print("estimate: about {} (speed tests, ppl, kld and gen) from earlier runs in {}",
                     FormatDuration(e.seconds), store_path);
          if (e.uncovered > 0) {
            fmt::print(" ({} cell-test pair(s) never measured before are not counted)",
                       e.uncovered);
          }
          fmt::print("\n");
        }
      }
    } else {
      fmt::print("estimate: none yet (no earlier runs in {})\n", store_path);
    }
    return 0;
  }
  const std::string store_path = args.store.empty() ? ex->store : args.store;
  auto store = store::Store::Open(store_path);
  if (!store) return Fail(InputError(store.error().message));  // a path the user gave

  fmt::print(stderr, "pipette {}: {} cell(s) from {}\n", kPipetteVersion, cells->size(), ex->path);
  if (!args.no_bandwidth)
    fmt::print(stderr, "recording the environment (memory bandwidth probe)\n");
  env::FingerprintOptions fo;
  fo.measure_bandwidth = !args.no_bandwidth;
  const nlohmann::json facts = env::CollectFingerprint(fo);
  auto env_id = (*store)->AddEnvironment({0, env::FingerprintId(facts), facts});
  if (!env_id) return Fail(env_id.error());

  const std::atomic<bool>* stop = StopOnSignals();
  worker::ProcessLauncher launcher;
  MakeVariantsFor(*ex, launcher, &*cells, stop);
  ExportingProgress progress(store->get(), args);
  run::RunnerDeps deps = LocalRunnerDeps(&launcher, store->get(), &progress, stop);
  auto summary = run::RunExperiment(*ex, *cells, registry, *env_id, deps);
  if (!summary) return Fail(summary.error());

  auto data = report::LoadReportData(**store, {summary->run_id});
  if (!data) return Fail(data.error());
  fmt::print("\n");
  auto md = report::MakeReporter("md");
  (*md)->Write(*data, std::cout);
  std::cout.flush();
  WarnIfNoisy(*data, ex->path);
  fmt::print(stderr, "\nstore: {} (run {}); {} cell(s) ok, {} failed{}\n", store_path,
             summary->run_id, summary->cells_ok, summary->cells_failed,
             summary->interrupted ? ", interrupted" : "");
  for (const auto& [format, path] : progress.exports()) {
    fmt::print(stderr, "report ({}): {}\n", format, path);
  }
  fmt::print(stderr, "more: build/pipette report --store {} --run {} --format md|csv|json\n",
             store_path, summary->run_id);
  if (summary->interrupted) return 130;
  return summary->cells_failed > 0 ? 1 : 0;
}

int Report(const ReportArgs& args) {
  auto reporter = report::MakeReporter(args.format);
  if (!reporter) return Fail(reporter.error());
  std::error_code ec;
  if (!fs::exists(args.store, ec)) {
    return Fail(
        InputError(fmt::format("no store at {}: run an experiment first (pipette run "
                               "EXPERIMENT.yaml) or give --store",
                               args.store)));
  }
  auto store = store::Store::Open(args.store);
  if (!store) return Fail(store.error());
  std::vector<int64_t> ids = args.runs;
  if (args.all) {
    auto runs = (*store)->Runs();
    if (!runs) return Fail(runs.error());
    ids.clear();
    for (const auto& r : *runs) ids.push_back(r.id);
  } else if (ids.empty()) {
    auto latest = (*store)->LatestRunId();
    if (!latest) return Fail(latest.error());
    if (!*latest) return Fail(InputError(fmt::format("the store {} has no runs yet", args.store)));
    ids.push_back(**latest);
  }
  auto data = report::LoadReportData(**store, ids);
  if (!data) return Fail(data.error());
  if (!args.vary.empty()) {
    if (args.format != "md") {
      return Fail(InputError("--vary prints Markdown tables: leave out --format or use md"));
    }
    auto table = metrics::BuildVaryTable(data->rows, args.vary);
    if (!table) return Fail(table.error());
    std::ostringstream vary_out;
    report::WriteVaryMarkdown(*table, vary_out);
    if (args.output.empty()) {
      std::cout << vary_out.str();
      return 0;
    }
    if (auto st = WriteFileAtomically(args.output, vary_out.str()); !st) return Fail(st.error());
    return 0;
  }
  if (args.output.empty()) {
    (*reporter)->Write(*data, std::cout);
    return 0;
  }
  std::ostringstream out;
  (*reporter)->Write(*data, out);
  if (auto st = WriteFileAtomically(args.output, out.str()); !st) return Fail(st.error());
  fmt::print(stderr, "wrote {}\n", args.output);
  return 0;
}

int Env(const EnvArgs& args) {
  env::FingerprintOptions fo;
  fo.measure_bandwidth = !args.no_bandwidth;
  nlohmann::json facts = env::CollectFingerprint(fo);
  facts["fingerprint_id"] = env::FingerprintId(facts);
  facts["pipette_version"] = kPipetteVersion;
  facts["pipette_commit"] = kPipetteCommit;
  facts["conditions"] = env::ToJson(env::ReadConditions());
  if (args.json) {
    fmt::print("{}\n", facts.dump(2));
    return 0;
  }
  for (const auto& [k, v] : facts.items()) {
    fmt::print("{:<22} {}\n", k, v.is_string() ? v.get<std::string>() : v.dump());
  }
  return 0;
}

}  // namespace pipette::app
