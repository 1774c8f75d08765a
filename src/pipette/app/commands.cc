#include "pipette/app/commands.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
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
#include <thread>

#include "pipette/app/console_progress.h"
#include "pipette/app/conversions.h"
#include "pipette/app/devices.h"
#include "pipette/app/measuring.h"
#include "pipette/app/model_facts.h"
#include "pipette/app/resume_checks.h"
#include "pipette/app/variants.h"
#include "pipette/build_info.h"
#include "pipette/config/experiment.h"
#include "pipette/config/param_docs.h"
#include "pipette/config/quality_spec.h"
#include "pipette/env/fingerprint.h"
#include "pipette/env/process.h"
#include "pipette/estimate/work.h"
#include "pipette/metrics/history.h"
#include "pipette/metrics/vary.h"
#include "pipette/model/gguf.h"
#include "pipette/plan/plan.h"
#include "pipette/report/document.h"
#include "pipette/report/formats.h"
#include "pipette/report/load.h"
#include "pipette/report/markdown.h"
#include "pipette/report/vary_view.h"
#include "pipette/run/resume.h"
#include "pipette/run/runner.h"
#include "pipette/runtime/registry.h"
#include "pipette/store/store.h"
#include "pipette/util/files.h"
#include "pipette/util/output_files.h"
#include "pipette/util/sha256.h"
#include "pipette/util/shell_quote.h"
#include "pipette/util/strings.h"
#include "pipette/workload/registry.h"

namespace pipette::app {
namespace fs = std::filesystem;

int Fail(const Error& e) {
  fmt::print(stderr, "error: {}\n", e.message);
  return e.exit_code;
}

int FailInput(Error e) {
  e.exit_code = 2;
  return Fail(e);
}

namespace {

// The one piece of process-wide state: a signal handler can only reach a global.

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

// A report file a run writes: its format, its path, and the option that named it.
struct ExportFile {
  std::string format, path, option;
};
using Exports = std::vector<ExportFile>;

// The report files a run writes: --export-md/--export-csv/--export-json and each --export
// FORMAT=PATH, of a registered format (report/formats.h). An unknown format is bad input.
Result<Exports> ExportsOf(const RunArgs& args) {
  Exports out;
  if (!args.export_md.empty()) out.push_back({"md", args.export_md, "--export-md"});
  if (!args.export_csv.empty()) out.push_back({"csv", args.export_csv, "--export-csv"});
  if (!args.export_json.empty()) out.push_back({"json", args.export_json, "--export-json"});
  for (const std::string& e : args.exports) {
    const size_t eq = e.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == e.size()) {
      return InputError(
          fmt::format("--export {}: give FORMAT=PATH, e.g. --export sql=run.sql (formats: {})", e,
                      report::FormatList()));
    }
    auto f = report::FindFormat(e.substr(0, eq));
    if (!f) return InputError(fmt::format("--export {}: {}", e, f.error().message));
    out.push_back({e.substr(0, eq), e.substr(eq + 1), "--export " + e.substr(0, eq) + "="});
  }
  return out;
}

// Every string of `j` (the resolved experiment) that names a file here, with where it stands
// ("quality.ppl.corpus"): the datasets, corpora and other files the experiment reads.
void FilesNamedIn(const nlohmann::json& j, const std::string& at, std::vector<NamedPath>* out) {
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    std::error_code ec;
    if (!s.empty() && s.size() < 4096 && fs::is_regular_file(s, ec)) {
      out->push_back({"a file the experiment reads (" + at + ")", s});
    }
  } else if (j.is_object()) {
    for (const auto& [k, v] : j.items()) FilesNamedIn(v, at.empty() ? k : at + "." + k, out);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) FilesNamedIn(j[i], fmt::format("{}[{}]", at, i), out);
  }
}

// What a run reads: the store, the experiment, every model (made or not yet), every worker, and
// every other file the resolved experiment names (datasets, corpora).
std::vector<NamedPath> RunInputs(const config::Experiment& ex, const std::string& store_path) {
  std::vector<NamedPath> in = StoreFiles("the store", store_path);
  in.push_back({"the experiment", ex.path});
  for (const config::ModelSpec& m : ex.models) in.push_back({"the model " + m.name, m.path});
  for (const config::RuntimeSpec& r : ex.runtimes) {
    in.push_back({"the worker of " + r.name, r.worker});
  }
  FilesNamedIn(ex.Resolved(), "", &in);
  return in;
}

// Progress on the console, plus the export files rewritten after every cell.
class ExportingProgress : public ConsoleProgress {
 public:
  ExportingProgress(store::Store* store, Exports exports, const env::ProcessTable* processes,
                    const config::ParamRegistry& params)
      : ConsoleProgress(stderr),
        store_(store),
        processes_(processes),
        params_(params),
        exports_(std::move(exports)) {}
  void CellFinished(const plan::Cell& cell, int n_cells, const store::CellRecord& rec) override {
    ConsoleProgress::CellFinished(cell, n_cells, rec);
    Export(rec.run_id);
  }
  // Writes every export, each tried whatever became of the others. The failures of this time
  // are kept (failed()); a file that newly fails, or fails otherwise than before, is warned of.
  void Export(int64_t run_id) {
    if (exports_.empty()) return;
    std::map<std::string, std::string> failed;
    auto fail_all = [&](const std::string& why) {
      for (const ExportFile& e : exports_) failed[e.path] = why;
    };
    auto data = report::LoadReportData(*store_, {run_id}, processes_);
    if (!data) {
      fail_all(data.error().message);
    } else {
      // Built once, with what the formats render, and rendered per format (each was checked
      // before the run began).
      report::ReportParts parts = report::ReportParts::kSummary;
      for (const ExportFile& e : exports_) {
        // kSummary < kAll < kPage: each holds the one before
        if (auto f = report::FindFormat(e.format)) parts = std::max(parts, (*f)->parts);
      }
      const report::Report doc = report::BuildReport(*data, params_, workload::Headlines(), parts);
      for (const ExportFile& e : exports_) {
        auto f = report::FindFormat(e.format);
        if (!f) {
          failed[e.path] = f.error().message;
          continue;
        }
        std::ostringstream out;
        (*f)->render(doc, out);
        if (auto st = WriteOutput(e.path, out.str(), *processes_); !st) {
          failed[e.path] = st.error().message;
        }
      }
    }
    for (const auto& [path, why] : failed) {
      const auto before = failed_.find(path);
      if (before == failed_.end() || before->second != why) {
        fmt::print(stderr, "warning: export not written: {}\n", why);
      }
    }
    failed_ = std::move(failed);
  }
  const Exports& exports() const { return exports_; }
  // Why an export's last writing failed, by path (none: every export was written).
  const std::map<std::string, std::string>& failed() const { return failed_; }

 private:
  store::Store* store_;
  const env::ProcessTable* processes_;
  const config::ParamRegistry& params_;  // how the reports show parameters
  Exports exports_;
  std::map<std::string, std::string> failed_;
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

Status WriteOutput(const std::string& path, const std::string& content,
                   const env::ProcessTable& processes) {
  return WriteFileAtomically(path, content, [&](int pid) { return processes.Exists(pid); });
}

Status CheckCommand(std::string_view first, const std::vector<std::string>& commands) {
  if (first.starts_with('-') ||
      std::find(commands.begin(), commands.end(), first) != commands.end()) {
    return {};
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

env::FingerprintOptions LocalFingerprintOptions(const Paths& paths, bool no_bandwidth) {
  env::FingerprintOptions fo;
  fo.measure_bandwidth = !no_bandwidth;
  fo.bandwidth_probe = (fs::path(paths.workers_dir) / env::kProbeProgram).string();
  return fo;
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
  const char* c = std::getenv("PIPETTE_CONVERTED_DIR");
  p.converted_dir = c && *c ? c : (fs::path(p.models_dir) / "converted").string();
  return p;
}

config::ResolveOptions ResolveOptionsHere(const Paths& paths) {
  config::ResolveOptions o{paths.models_dir, paths.workers_dir, paths.datasets_dir,
                           paths.variants_dir, paths.converted_dir};
  o.qualities = &workload::QualitySpecs();
  o.machine.logical_cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return o;
}

std::string RunHelpFooter() {
  return "\n" + config::ParamHelpText(config::ParamRegistry::Default());
}

int Run(const RunArgs& args, const Paths& paths, device::Device& device) {
  const config::ParamRegistry registry = config::ParamRegistry::Default();
  const config::ResolveOptions load = ResolveOptionsHere(paths);
  const bool resuming = args.resume != 0;
  if (args.resume < 0) {
    return Fail(
        InputError(fmt::format("--resume {}: a run id is 1 or more (pipette report --all "
                               "lists them)",
                               args.resume)));
  }
  if (args.experiment.empty() && !resuming) {
    return Fail(
        InputError("give an experiment file: pipette run EXPERIMENT.yaml (or --resume RUN)"));
  }
  if (resuming && !args.only.empty()) {
    return Fail(
        InputError("--only cannot narrow a resumed run: it keeps the --only it was started with"));
  }
  if (args.retry_failed && !resuming) {
    return Fail(InputError("--retry-failed goes with --resume RUN"));
  }
  auto exports = ExportsOf(args);
  if (!exports) return Fail(exports.error());
  env::LinuxProcessTable processes;

  // The experiment, and for a resume the stored run it continues: everything is checked from a
  // read-only look at the store before anything waits, writes or measures.
  std::optional<config::Experiment> ex;
  if (!args.experiment.empty()) {
    auto loaded = config::LoadExperiment(args.experiment, registry, load);
    if (!loaded) return Fail(loaded.error());
    ex = std::move(*loaded);
  }
  const std::string store_path = !args.store.empty() ? args.store
                                 : ex                ? ex->store
                                                     : "results/pipette.db";
  std::optional<RunToResume> prior;
  std::unique_ptr<store::Store> look;  // a resume's read-only look at the store, before the lock
  if (resuming) {
    auto ro = store::Store::Open(store_path, store::OpenMode::kReadOnly);
    if (!ro) return Fail(ro.error());
    look = std::move(*ro);
    auto r = ReadRunToResume(*look, args.resume, processes);
    if (!r) return Fail(r.error());
    prior = std::move(*r);
    if (!ex) {
      std::error_code ec;
      if (!fs::is_regular_file(prior->run.experiment_path, ec)) {
        return Fail(InputError(fmt::format(
            "run {} was made from {}, which is not there now: give the experiment file (pipette "
            "run EXPERIMENT.yaml --resume {})",
            prior->run.id, prior->run.experiment_path, prior->run.id)));
      }
      auto loaded = config::LoadExperiment(prior->run.experiment_path, registry, load);
      if (!loaded) return Fail(loaded.error());
      ex = std::move(*loaded);
    }
  }
  // No output overwrites what the run reads, nor another output; each can be written where it is.
  {
    std::vector<NamedPath> outputs;
    for (const ExportFile& e : *exports) outputs.push_back({e.option, e.path});
    outputs.insert(outputs.end(), args.other_outputs.begin(), args.other_outputs.end());
    if (auto st = CheckOutputs(RunInputs(*ex, store_path), outputs); !st) return Fail(st.error());
  }
  // A resumed run goes on as it began: interleaved or not.
  ex->interleave = resuming ? prior->run.interleave : args.interleave;
  if (resuming && args.interleave && !prior->run.interleave) {
    fmt::print(stderr,
               "note: --interleave ignored: run {} was not interleaved, and a resumed run goes "
               "on as it began\n",
               prior->run.id);
  }
  auto cells = plan::Expand(*ex, runtime::Registry());
  if (!cells) return Fail(cells.error());
  const std::string only = resuming ? prior->run.only : args.only;
  if (!only.empty()) {
    // The kld and divergence reference runs with any narrowed plan: the others need it.
    const std::string reference = config::ReferenceModel(ex->written.quality);
    cells = plan::Narrow(*cells, only, registry, reference);
    if (!cells) return Fail(cells.error());
  }
  std::optional<run::ResumePlan> resume;
  if (resuming) {
    auto rp = PlanResumeOf(*look, *prior, *ex, registry, *cells, args.retry_failed);
    if (!rp) return Fail(rp.error());
    resume = std::move(*rp);
    look.reset();  // the read-only look ends here: nothing holds the store while this one waits
  }
  WarnRequantized(*ex);
  for (const std::string& w : plan::LeftOut(*ex, runtime::Registry())) {
    fmt::print(stderr, "note: {}\n", w);
  }
  if (args.dry_run) {
    if (resume) {
      PrintResumePlan(prior->run, *cells, *resume);
      return 0;
    }
    PrintPlan(*ex, *cells, registry);
    PrintVariantPlan(*ex, *cells, device);
    ProcessCommandRunner converter;
    PrintConversionPlan(*ex, *cells, converter);
    // A time estimate from what the store measured before, if there is a store (read only:
    // a dry run writes nothing).
    std::error_code ec;
    if (fs::exists(store_path, ec)) {
      auto ro = store::Store::Open(store_path, store::OpenMode::kReadOnly);
      if (ro) {
        auto recent = (*ro)->RecentSamples(estimate::kHistorySamples);
        if (recent) {
          const estimate::Estimate e =
              estimate::EstimateRun(*ex, *cells, registry, metrics::BuildHistory(*recent));
          fmt::print(
              "estimate: about {} (model loads, speed tests, ppl, kld and gen) from earlier runs "
              "in {}",
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
  auto nothing_left = [&] {
    fmt::print(
        stderr, "run {} has nothing left to measure: {} cell(s) complete{}\n", prior->run.id,
        resume->done.size(),
        resume->failed_kept > 0
            ? fmt::format(", {} failed (--retry-failed measures them again)", resume->failed_kept)
            : "");
    return resume->failed_kept > 0 ? 1 : 0;
  };
  if (resume && resume->to_run.empty()) return nothing_left();

  // The lock first: a run that waits, or is refused, has written nothing.
  const std::atomic<bool>* stop = StopOnSignals();
  auto lock = TakeMeasureLock({args.no_wait, args.lock_timeout_s}, "pipette run " + ex->path,
                              store_path, processes, stop);
  if (!lock) return Fail(lock.error());
  auto opened = OpenStoreForWriting(store_path, processes);
  if (!opened) return Fail(opened.error());
  std::unique_ptr<store::Store> store = std::move(*opened);
  if (resume) {
    // Read and planned again under the lock: another resume may have measured it meanwhile.
    auto r = ReadRunToResume(*store, prior->run.id, processes);
    if (!r) return Fail(r.error());
    prior = std::move(*r);
    auto rp = PlanResumeOf(*store, *prior, *ex, registry, *cells, args.retry_failed);
    if (!rp) return Fail(rp.error());
    resume = std::move(*rp);
    if (resume->to_run.empty()) return nothing_left();
    fmt::print(stderr, "pipette {}: resuming run {}: {} of {} cell(s) to measure from {}\n",
               kPipetteVersion, prior->run.id, resume->to_run.size(), cells->size(), ex->path);
  } else {
    fmt::print(stderr, "pipette {}: {} cell(s) from {}\n", kPipetteVersion, cells->size(),
               ex->path);
  }
  if (!args.no_bandwidth)
    fmt::print(stderr, "recording the environment (memory bandwidth probe)\n");
  const nlohmann::json facts =
      device.Fingerprint(LocalFingerprintOptions(paths, args.no_bandwidth));
  if (resume) {
    auto then = store->Environment(prior->run.environment_id);
    if (then && then->fingerprint_id != env::FingerprintId(facts)) {
      return Fail(InputError(fmt::format(
          "cannot resume run {}: it was measured on another device (fingerprint {}, {}); this is "
          "{} ({}). Resume it there, or start a new run",
          prior->run.id, then->fingerprint_id, then->facts.value("cpu_model", "?"),
          env::FingerprintId(facts), facts.value("cpu_model", "?"))));
    }
  }

  ProcessCommandRunner converter;  // converts on this machine, before the cells
  if (resume) {
    // Only the variants of the cells measured now are made; the files and the build must be
    // those the run measured with.
    std::vector<plan::Cell> todo;
    for (int i : resume->to_run) todo.push_back((*cells)[static_cast<size_t>(i)]);
    MakeVariantsFor(*ex, device, &todo, stop);
    MakeConversionsFor(*ex, converter, &todo, stop);
    for (const plan::Cell& c : todo) (*cells)[static_cast<size_t>(c.index)] = c;
    if (auto st = CheckSameFilesAndBuild(*prior, *cells, *resume, device); !st) {
      return Fail(st.error());
    }
  } else {
    MakeVariantsFor(*ex, device, &*cells, stop);
    MakeConversionsFor(*ex, converter, &*cells, stop);
  }
  auto env_id = store->AddEnvironment({0, env::FingerprintId(facts), facts});
  if (!env_id) return FailInput(env_id.error());  // nothing measured, no run written

  ExportingProgress progress(store.get(), std::move(*exports), &processes, registry);
  run::RunnerDeps deps = LocalRunnerDeps(&device, store.get(), &progress, stop, &processes);
  // The experiment's other devices, opened when their first cell runs.
  RunDevices devices(device, *store, paths.workers_dir, !args.no_bandwidth);
  if (resume) {
    auto then = DeviceEnvironmentsOf(*store, *prior);
    if (!then) return Fail(then.error());
    devices.ExpectEnvironments(prior->run.id, std::move(*then));
  }
  deps.open_device = [&](const config::DeviceSpec& s) { return devices.Open(s); };
  deps.worker_for = [&](const config::RuntimeSpec& r, device::Device& d) {
    return devices.WorkerFor(r, d);
  };
  deps.lock = (*lock)->Record();
  int64_t run_id = 0;
  deps.run_started = [&](int64_t id) {
    run_id = id;
    (*lock)->Describe({{"run_id", id}});
  };
  deps.only = only;
  deps.strict = args.strict;
  if (resume) deps.resume = &*resume;
  auto summary = run::RunExperiment(*ex, *cells, registry, *env_id, deps);
  // The exports say how the run ended, whatever way it ended.
  if (run_id > 0) progress.Export(run_id);
  for (const std::string& line : devices.StagingSummary()) fmt::print(stderr, "{}\n", line);
  // A run that could not begin (the store refused it) measured nothing: bad input, like any
  // refusal before the first cell.
  if (!summary) return run_id > 0 ? Fail(summary.error()) : FailInput(summary.error());

  auto data = report::LoadReportData(*store, {summary->run_id}, &processes);
  if (!data) return Fail(data.error());
  std::ostream& table = args.table_to_stderr ? std::cerr : std::cout;
  table << "\n";
  auto md = report::FindFormat("md");
  (*md)->render(report::BuildReport(*data, registry, workload::Headlines(), (*md)->parts), table);
  table.flush();
  WarnIfNoisy(*data, ex->path);
  const int failed_kept = resume ? resume->failed_kept : 0;
  // The controller's own footprint, beside the workers' (docs/metrics.md "controller peak RSS").
  std::string controller_peak;
  if (auto hwm = env::OwnPeakRssBytes()) {
    if (auto st = store->NoteControllerPeakRss(summary->run_id, *hwm); !st) {
      fmt::print(stderr, "warning: {}\n", st.error().message);
    }
    controller_peak = fmt::format("; controller peak RSS {}", FormatBytes(double(*hwm)));
  }
  fmt::print(stderr, "\nstore: {} (run {}); {} cell(s) ok, {} failed{}{}{}\n", store_path,
             summary->run_id, summary->cells_ok, summary->cells_failed,
             summary->cells_kept + failed_kept > 0
                 ? fmt::format(", {} kept from before the resume ({} failed)",
                               summary->cells_kept + failed_kept, failed_kept)
                 : "",
             summary->interrupted ? ", interrupted" : "", controller_peak);
  // Only the exports written are called reports; each one that was not is named, with why.
  for (const ExportFile& e : progress.exports()) {
    if (const auto f = progress.failed().find(e.path); f != progress.failed().end()) {
      fmt::print(stderr, "error: report ({}) not written: {}\n", e.format, f->second);
    } else {
      fmt::print(stderr, "report ({}): {}\n", e.format, e.path);
    }
  }
  if (summary->interrupted) {
    fmt::print(stderr, "resume: build/pipette run {} --store {} --resume {}\n",
               ShellQuote(ex->path), ShellQuote(store_path), summary->run_id);
  }
  fmt::print(stderr, "more: build/pipette report --store {} --run {} --format {}\n",
             ShellQuote(store_path), summary->run_id, report::FormatList("|"));
  if (summary->interrupted) return 130;
  // 1: a cell failed, or an export could not be written (the measurements are in the store).
  return summary->cells_failed + failed_kept > 0 || !progress.failed().empty() ? 1 : 0;
}

int Report(const ReportArgs& args) {
  auto format = report::FindFormat(args.format);
  if (!format) return Fail(format.error());
  if (auto st = CheckOutputs(StoreFiles("the store", args.store), {{"-o", args.output}}); !st) {
    return Fail(st.error());
  }
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
  auto data = report::LoadReportData(**store, ids, &processes, {.derived_cache = !args.no_cache});
  if (!data) return Fail(data.error());
  // The parameters of the runtimes Pipette ships: how the tables name and show them.
  const config::ParamRegistry& params = runtime::Registry().Params();
  if (!args.vary.empty()) {
    if (args.format != "md") {
      return Fail(InputError("--vary prints Markdown tables: leave out --format or use md"));
    }
    auto table = metrics::BuildVaryTable(data->rows, args.vary, params, workload::Headlines());
    if (!table) return Fail(table.error());
    std::ostringstream vary_out;
    report::WriteVaryMarkdown(report::BuildVaryView(*table, data->rows, params), vary_out);
    if (args.output.empty()) {
      std::cout << vary_out.str();
      return 0;
    }
    if (auto st = WriteOutput(args.output, vary_out.str(), processes); !st) {
      return Fail(st.error());
    }
    return 0;
  }
  const report::Report doc =
      report::BuildReport(*data, params, workload::Headlines(), (*format)->parts);
  if (args.output.empty()) {
    (*format)->render(doc, std::cout);
    return 0;
  }
  std::ostringstream out;
  (*format)->render(doc, out);
  if (auto st = WriteOutput(args.output, out.str(), processes); !st) return Fail(st.error());
  fmt::print(stderr, "wrote {}\n", args.output);
  return 0;
}

namespace {

// The experiment's device `name`, or an input error naming the names it has.
Result<config::DeviceSpec> ExperimentDevice(const EnvArgs& args, const Paths& paths) {
  if (args.experiment.empty()) {
    return InputError(fmt::format(
        "--device {} names a device of an experiment file: pipette env EXPERIMENT.yaml --device {}",
        args.device, args.device));
  }
  const config::ParamRegistry registry = config::ParamRegistry::Default();
  auto ex = config::LoadExperiment(args.experiment, registry, ResolveOptionsHere(paths));
  if (!ex) return ex.error();
  std::vector<std::string> names;
  for (const config::DeviceSpec& d : ex->devices) {
    if (d.name == args.device) return d;
    names.push_back(d.name);
  }
  return InputError(fmt::format("{}: no device '{}' in its devices ({}){}", args.experiment,
                                args.device, fmt::join(names, ", "),
                                DidYouMean(args.device, names)));
}

void PrintFacts(const nlohmann::json& facts, bool as_json) {
  if (as_json) {
    fmt::print("{}\n", facts.dump(2));
    return;
  }
  for (const auto& [k, v] : facts.items()) {
    fmt::print("{:<22} {}\n", k, v.is_string() ? v.get<std::string>() : v.dump());
  }
}

}  // namespace

int Env(const EnvArgs& args, const Paths& paths, device::Device& device) {
  env::LinuxProcessTable processes;
  std::unique_ptr<run::MeasureLock> lock;
  // The bandwidth probe measures this machine: not while another Pipette measures here.
  auto take_lock = [&]() -> Result<void> {
    if (args.no_bandwidth) return {};
    auto taken = TakeMeasureLock({args.no_wait, args.lock_timeout_s}, "pipette env", "", processes,
                                 StopOnSignals());
    if (!taken) return taken.error();
    lock = std::move(*taken);
    return {};
  };
  if (!args.device.empty()) {
    auto spec = ExperimentDevice(args, paths);
    if (!spec) return Fail(spec.error());
    if (!spec->IsLocal()) {
      // Read on the device, its bandwidth probe run there: this machine's lock is taken only for
      // a tier of this machine, whose probe runs here.
      if (spec->kind == "local") {
        if (auto st = take_lock(); !st) return Fail(st.error());
      }
      ProcessCommandRunner runner;
      auto made = MakeDevice(*spec, runner);
      if (!made) return Fail(made.error());
      std::string note;
      auto facts =
          DeviceFingerprint(**made, *spec,
                            FingerprintOptionsFor(!args.no_bandwidth, paths.workers_dir, device,
                                                  spec->kind == "local" ? device : **made, &note));
      if (!note.empty()) fmt::print(stderr, "note: {}\n", note);
      if (!facts) return Fail(facts.error());
      (*facts)["fingerprint_id"] = env::FingerprintId(*facts);
      (*facts)["conditions"] = (*made)->Conditions();
      PrintFacts(*facts, args.json);
      return 0;
    }
  }
  if (auto st = take_lock(); !st) return Fail(st.error());
  nlohmann::json facts = device.Fingerprint(LocalFingerprintOptions(paths, args.no_bandwidth));
  facts["fingerprint_id"] = env::FingerprintId(facts);
  facts["pipette_version"] = kPipetteVersion;
  facts["pipette_commit"] = kPipetteCommit;
  facts["conditions"] = device.Conditions();
  PrintFacts(facts, args.json);
  return 0;
}

}  // namespace pipette::app
