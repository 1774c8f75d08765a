#include "pipette/app/commands.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "pipette/app/console_progress.h"
#include "pipette/app/measuring.h"
#include "pipette/app/model_facts.h"
#include "pipette/app/variants.h"
#include "pipette/build_info.h"
#include "pipette/config/experiment.h"
#include "pipette/env/fingerprint.h"
#include "pipette/env/process.h"
#include "pipette/metrics/vary.h"
#include "pipette/model/gguf.h"
#include "pipette/plan/estimate.h"
#include "pipette/plan/plan.h"
#include "pipette/report/load.h"
#include "pipette/report/reporter.h"
#include "pipette/run/resume.h"
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
  ExportingProgress(store::Store* store, const RunArgs& args, const env::ProcessTable* processes)
      : ConsoleProgress(stderr), store_(store), processes_(processes) {
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
    auto data = report::LoadReportData(*store_, {run_id}, processes_);
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
  const env::ProcessTable* processes_;
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

namespace {

// The --dry-run of a resume: which cells are kept and which are measured again.
void PrintResumePlan(const store::RunRecord& run, const std::vector<plan::Cell>& cells,
                     const run::ResumePlan& rp) {
  fmt::print("resume run {} ({}): {} of {} cell(s) to measure\n", run.id, run.status,
             rp.to_run.size(), cells.size());
  for (const plan::Cell& c : cells) {
    std::string what = "kept (complete)";
    if (std::find(rp.to_run.begin(), rp.to_run.end(), c.index) != rp.to_run.end()) {
      what = rp.supersede.count(c.index) ? "measured again from its start" : "measured";
    } else if (!rp.done.count(c.index)) {
      what = "kept (failed; --retry-failed measures it again)";
    }
    fmt::print("  {:>4}  {}  {}\n", c.index + 1, c.Key(), what);
  }
}

// Why a run cannot be resumed as it stands, before anything is measured.
Status CheckResumable(const store::RunRecord& run, const config::Experiment& ex,
                      const std::string& store_path) {
  if (run.status == "running" || run.status == store::kRunningElsewhere) {
    const auto who = env::ProcessIdentity::FromJson(run.controller);
    return InputError(fmt::format("run {} in {} is {} ({}): it cannot be resumed while it runs",
                                  run.id, store_path, run.status, who.Describe()));
  }
  if (ex.Hash() != run.config_hash) {
    std::string diff = run::DescribeDifference(run.config_canonical, ex.Canonical().dump());
    if (diff.empty()) diff = "the resolved experiment's hash differs";
    return InputError(
        fmt::format("cannot resume run {}: {} is not the experiment it ran ({}). "
                    "Start a new run instead",
                    run.id, ex.path, diff));
  }
  return {};
}

// The models of the cells to measure must be the files the run measured before.
Status CheckModelsUnchanged(const store::RunRecord& run, const std::vector<plan::Cell>& cells,
                            const std::vector<store::CellRecord>& stored,
                            const run::ResumePlan& rp) {
  std::map<std::string, std::string> then;  // model name -> SHA-256 the run measured
  for (const auto& c : stored) {
    if (!c.model_sha256.empty()) then.emplace(c.model_name, c.model_sha256);
  }
  std::map<std::string, std::string> now;
  for (int i : rp.to_run) {
    const plan::Cell& cell = cells[static_cast<size_t>(i)];
    auto it = then.find(cell.model.name);
    if (it == then.end() || now.count(cell.model.name) || !cell.model.unavailable.empty()) {
      continue;
    }
    auto sha = Sha256File(cell.model.path);
    if (!sha)
      return InputError(fmt::format("cannot resume run {}: {}", run.id, sha.error().message));
    now[cell.model.name] = *sha;
    if (*sha != it->second) {
      return InputError(fmt::format(
          "cannot resume run {}: model '{}' ({}) has changed: its SHA-256 is {} now, {} when the "
          "run measured it. Start a new run instead",
          run.id, cell.model.name, cell.model.path, *sha, it->second));
    }
  }
  return {};
}

// The corpora and datasets must be the files the run measured with.
Status CheckDatasetsUnchanged(const store::RunRecord& run, store::Store& store,
                              const config::Experiment& ex) {
  auto samples = store.SamplesOfRun(run.id, {"ppl_corpus", "mc_dataset", "gen_dataset", "kld_ref"});
  if (!samples) return samples.error();
  std::map<std::string, std::string> then;  // path -> SHA-256 the run measured with
  for (const auto& s : *samples) {
    if (s.test == "kld_ref") {
      const std::string sha =
          s.raw.value("request", nlohmann::json::object()).value("corpus_sha256", "");
      if (ex.kld && !sha.empty()) then.emplace(ex.kld->corpus, sha);
    } else if (s.raw.contains("path") && s.raw.contains("sha256")) {
      then.emplace(s.raw.value("path", ""), s.raw.value("sha256", ""));
    }
  }
  for (const auto& [path, sha] : then) {
    auto now = Sha256File(path);
    if (!now) {
      return InputError(
          fmt::format("cannot resume run {}: the dataset {} it measured with is not "
                      "readable now: {}",
                      run.id, path, now.error().message));
    }
    if (*now != sha) {
      return InputError(
          fmt::format("cannot resume run {}: the dataset {} has changed: its SHA-256 "
                      "is {} now, {} when the run measured with it. Start a new run "
                      "instead",
                      run.id, path, *now, sha));
    }
  }
  return {};
}

}  // namespace

int Run(const RunArgs& args, const Paths& paths) {
  const config::ParamRegistry registry = config::ParamRegistry::Default();
  const config::LoadOptions load{paths.models_dir, paths.workers_dir, paths.datasets_dir,
                                 paths.variants_dir};
  const bool resuming = args.resume > 0;
  if (args.experiment.empty() && !resuming) {
    return Fail(
        InputError("give an experiment file: pipette run EXPERIMENT.yaml (or --resume RUN)"));
  }
  if (resuming && !args.only.empty()) {
    return Fail(
        InputError("--only cannot narrow a resumed run: it keeps the --only it was "
                   "started with"));
  }
  if (args.retry_failed && !resuming) {
    return Fail(InputError("--retry-failed goes with --resume RUN"));
  }
  env::LinuxProcessTable processes;

  // The experiment, and for a resume the stored run it continues.
  std::optional<config::Experiment> ex;
  if (!args.experiment.empty()) {
    auto loaded = config::LoadExperiment(args.experiment, registry, load);
    if (!loaded) return Fail(loaded.error());
    ex = std::move(*loaded);
  }
  std::string store_path = !args.store.empty() ? args.store : ex ? ex->store : "results/pipette.db";
  std::unique_ptr<store::Store> store;
  std::optional<store::RunRecord> prior;
  std::vector<store::CellRecord> prior_cells;
  if (resuming) {
    auto opened = args.dry_run ? store::Store::Open(store_path, store::OpenMode::kReadOnly)
                               : OpenStoreForWriting(store_path, processes);
    if (!opened) return Fail(opened.error());
    store = std::move(*opened);
    auto r = store->Run(args.resume);
    if (!r) return Fail(r.error());
    r->status = store::LiveStatus(*r, processes, store_path);
    prior = std::move(*r);
    auto cs = store->Cells(prior->id);
    if (!cs) return Fail(cs.error());
    prior_cells = std::move(*cs);
    if (!ex) {
      std::error_code ec;
      if (!fs::is_regular_file(prior->experiment_path, ec)) {
        return Fail(
            InputError(fmt::format("run {} was made from {}, which is not there now: give "
                                   "the experiment file (pipette run EXPERIMENT.yaml "
                                   "--resume {})",
                                   prior->id, prior->experiment_path, prior->id)));
      }
      auto loaded = config::LoadExperiment(prior->experiment_path, registry, load);
      if (!loaded) return Fail(loaded.error());
      ex = std::move(*loaded);
    }
  }
  auto cells = plan::Expand(*ex, registry);
  if (!cells) return Fail(cells.error());
  const std::string only = resuming ? prior->only : args.only;
  if (!only.empty()) {
    // The kld and divergence reference runs with any narrowed plan: the others need it.
    const std::string reference = ex->kld                    ? ex->kld->reference
                                  : ex->divergence_reference ? *ex->divergence_reference
                                                             : "";
    cells = plan::Narrow(*cells, only, registry, reference);
    if (!cells) return Fail(cells.error());
  }
  std::optional<run::ResumePlan> resume;
  if (resuming) {
    if (auto st = CheckResumable(*prior, *ex, store_path); !st) return Fail(st.error());
    if (auto st = CheckDatasetsUnchanged(*prior, *store, *ex); !st) return Fail(st.error());
    auto rp = run::PlanResume(*cells, prior_cells, args.retry_failed);
    if (!rp) {
      return Fail(
          InputError(fmt::format("cannot resume run {}: {}", prior->id, rp.error().message)));
    }
    rp->run_id = prior->id;
    resume = std::move(*rp);
  }
  WarnRequantized(*ex);
  if (args.dry_run) {
    if (resume) {
      PrintResumePlan(*prior, *cells, *resume);
      return 0;
    }
    PrintPlan(*ex, *cells, registry);
    worker::ProcessLauncher quantizer;
    PrintVariantPlan(*ex, *cells, quantizer);
    // A time estimate from what the store measured before, if there is a store (read only:
    // a dry run writes nothing).
    std::error_code ec;
    if (fs::exists(store_path, ec)) {
      auto ro = store::Store::Open(store_path, store::OpenMode::kReadOnly);
      if (ro) {
        auto recent = (*ro)->RecentSamples(20000);
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
  if (resume && resume->to_run.empty()) {
    fmt::print(
        stderr, "run {} has nothing left to measure: {} cell(s) complete{}\n", prior->id,
        resume->done.size(),
        resume->failed_kept > 0
            ? fmt::format(", {} failed (--retry-failed measures them again)", resume->failed_kept)
            : "");
    return 0;
  }
  if (!store) {
    auto opened = OpenStoreForWriting(store_path, processes);
    if (!opened) return Fail(opened.error());
    store = std::move(*opened);
  }

  const std::atomic<bool>* stop = StopOnSignals();
  auto lock = TakeMeasureLock({args.no_wait, args.lock_timeout_s}, "pipette run " + ex->path,
                              store_path, processes, stop);
  if (!lock) return Fail(lock.error());
  if (resume) {
    fmt::print(stderr, "pipette {}: resuming run {}: {} of {} cell(s) to measure from {}\n",
               kPipetteVersion, prior->id, resume->to_run.size(), cells->size(), ex->path);
  } else {
    fmt::print(stderr, "pipette {}: {} cell(s) from {}\n", kPipetteVersion, cells->size(),
               ex->path);
  }
  if (!args.no_bandwidth)
    fmt::print(stderr, "recording the environment (memory bandwidth probe)\n");
  env::FingerprintOptions fo;
  fo.measure_bandwidth = !args.no_bandwidth;
  const nlohmann::json facts = env::CollectFingerprint(fo);
  if (resume) {
    auto then = store->Environment(prior->environment_id);
    if (then && then->fingerprint_id != env::FingerprintId(facts)) {
      return Fail(InputError(fmt::format(
          "cannot resume run {}: it was measured on another device (fingerprint {}, {}); this is "
          "{} ({}). Resume it there, or start a new run",
          prior->id, then->fingerprint_id, then->facts.value("cpu_model", "?"),
          env::FingerprintId(facts), facts.value("cpu_model", "?"))));
    }
  }

  worker::ProcessLauncher launcher;
  if (resume) {
    // Only the variants of the cells measured now are made; they must be the files measured
    // before.
    std::vector<plan::Cell> todo;
    for (int i : resume->to_run) todo.push_back((*cells)[static_cast<size_t>(i)]);
    MakeVariantsFor(*ex, launcher, &todo, stop);
    for (const plan::Cell& c : todo) (*cells)[static_cast<size_t>(c.index)] = c;
    if (auto st = CheckModelsUnchanged(*prior, *cells, prior_cells, *resume); !st) {
      return Fail(st.error());
    }
  } else {
    MakeVariantsFor(*ex, launcher, &*cells, stop);
  }
  auto env_id = store->AddEnvironment({0, env::FingerprintId(facts), facts});
  if (!env_id) return Fail(env_id.error());

  ExportingProgress progress(store.get(), args, &processes);
  run::RunnerDeps deps = LocalRunnerDeps(&launcher, store.get(), &progress, stop, &processes);
  deps.lock = (*lock)->Record();
  deps.run_started = [&lock](int64_t id) { (*lock)->Describe({{"run_id", id}}); };
  deps.only = only;
  if (resume) deps.resume = &*resume;
  auto summary = run::RunExperiment(*ex, *cells, registry, *env_id, deps);
  // The exports say how the run ended, whatever way it ended.
  const int64_t run_id = summary ? summary->run_id : resume ? prior->id : 0;
  if (run_id > 0) {
    if (auto st = progress.Export(run_id); !st) {
      fmt::print(stderr, "warning: {}\n", st.error().message);
    }
  }
  if (!summary) return Fail(summary.error());

  auto data = report::LoadReportData(*store, {summary->run_id}, &processes);
  if (!data) return Fail(data.error());
  fmt::print("\n");
  auto md = report::MakeReporter("md");
  (*md)->Write(*data, std::cout);
  std::cout.flush();
  WarnIfNoisy(*data, ex->path);
  fmt::print(stderr, "\nstore: {} (run {}); {} cell(s) ok, {} failed{}{}\n", store_path,
             summary->run_id, summary->cells_ok, summary->cells_failed,
             summary->cells_kept > 0
                 ? fmt::format(", {} kept from before the resume", summary->cells_kept)
                 : "",
             summary->interrupted ? ", interrupted" : "");
  for (const auto& [format, path] : progress.exports()) {
    fmt::print(stderr, "report ({}): {}\n", format, path);
  }
  if (summary->interrupted) {
    fmt::print(stderr, "resume: build/pipette run {} --store {} --resume {}\n", ex->path,
               store_path, summary->run_id);
  }
  fmt::print(stderr, "more: build/pipette report --store {} --run {} --format md|csv|json\n",
             store_path, summary->run_id);
  if (summary->interrupted) return 130;
  return summary->cells_failed > 0 ? 1 : 0;
}

int Report(const ReportArgs& args) {
  auto reporter = report::MakeReporter(args.format);
  if (!reporter) return Fail(reporter.error());
  // A report only reads: a store on a read-only file system, or an older one, is reported as it
  // is, and abandoned runs are shown so without being marked.
  auto store = store::Store::Open(args.store, store::OpenMode::kReadOnly);
  if (!store) return Fail(store.error());
  env::LinuxProcessTable processes;
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
  auto data = report::LoadReportData(**store, ids, &processes);
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
