// `pipette run`: the experiment planned and checked, the store locked, the cells measured, the
// table printed and the exports written (docs/running.md). Run is the sequence of those steps;
// each is a function below.
#include <fmt/format.h>

#include <atomic>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "pipette/app/commands.h"
#include "pipette/app/console_progress.h"
#include "pipette/app/conversions.h"
#include "pipette/app/devices.h"
#include "pipette/app/measuring.h"
#include "pipette/app/model_facts.h"
#include "pipette/app/resume_checks.h"
#include "pipette/app/run_exports.h"
#include "pipette/app/variants.h"
#include "pipette/build_info.h"
#include "pipette/config/experiment.h"
#include "pipette/config/spec_def.h"
#include "pipette/env/fingerprint.h"
#include "pipette/env/process.h"
#include "pipette/metrics/history.h"
#include "pipette/plan/plan.h"
#include "pipette/report/document.h"
#include "pipette/report/formats.h"
#include "pipette/report/load.h"
#include "pipette/run/resume.h"
#include "pipette/run/runner.h"
#include "pipette/runtime/registry.h"
#include "pipette/store/store.h"
#include "pipette/util/output_files.h"
#include "pipette/util/shell_quote.h"
#include "pipette/util/strings.h"
#include "pipette/workload/planned_work.h"
#include "pipette/workload/registry.h"

namespace pipette::app {
namespace fs = std::filesystem;
namespace {

void PrintPlan(const config::Experiment& ex, const std::vector<plan::Cell>& cells,
               const runtime::ParamRegistry& registry) {
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

// hyperfine-style advice: say what is wrong and what to do next.
void WarnIfNoisy(const report::ReportData& data, const std::string& experiment) {
  int noisy = 0, headline = 0;
  for (const auto& r : data.rows) {
    if (!workload::Figures().IsHeadline(r)) continue;
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

// The arguments alone, before any file is read.
Status CheckRunArgs(const RunArgs& args) {
  const bool resuming = args.resume != 0;
  if (args.resume < 0) {
    return InputError(fmt::format(
        "--resume {}: a run id is 1 or more (pipette report --all lists them)", args.resume));
  }
  if (args.experiment.empty() && !resuming) {
    return InputError("give an experiment file: pipette run EXPERIMENT.yaml (or --resume RUN)");
  }
  if (resuming && !args.only.empty()) {
    return InputError(
        "--only cannot narrow a resumed run: it keeps the --only it was started with");
  }
  if (args.retry_failed && !resuming) {
    return InputError("--retry-failed goes with --resume RUN");
  }
  return {};
}

// What a run measures: the experiment, its store, its cells, and for a resume the stored run it
// continues and what is left of it.
struct RunPlan {
  config::Experiment ex;
  std::string store_path;
  std::vector<plan::Cell> cells;
  std::string only;  // the --only it runs with (a resume's own)
  std::optional<RunToResume> prior;
  std::optional<run::ResumePlan> resume;
};

// The plan, from the experiment and, for a resume, a read-only look at the store: everything is
// checked before anything waits, writes or measures. No output may overwrite what the run reads,
// nor another output.
Result<RunPlan> PlanRun(const RunArgs& args, const runtime::ParamRegistry& registry,
                        const config::ResolveOptions& load, const Exports& exports,
                        env::ProcessTable& processes) {
  const bool resuming = args.resume != 0;
  RunPlan p;
  std::optional<config::Experiment> ex;
  if (!args.experiment.empty()) {
    auto loaded = config::LoadExperiment(args.experiment, registry, load);
    if (!loaded) return loaded.error();
    ex = std::move(*loaded);
  }
  p.store_path = !args.store.empty() ? args.store : ex ? ex->store : "results/pipette.db";
  std::unique_ptr<store::Store> look;  // a resume's read-only look at the store, before the lock
  if (resuming) {
    auto ro = store::Store::Open(p.store_path, store::OpenMode::kReadOnly);
    if (!ro) return ro.error();
    look = std::move(*ro);
    auto r = ReadRunToResume(*look, args.resume, processes);
    if (!r) return r.error();
    p.prior = std::move(*r);
    if (!ex) {
      std::error_code ec;
      if (!fs::is_regular_file(p.prior->run.experiment_path, ec)) {
        return InputError(fmt::format(
            "run {} was made from {}, which is not there now: give the experiment file (pipette "
            "run EXPERIMENT.yaml --resume {})",
            p.prior->run.id, p.prior->run.experiment_path, p.prior->run.id));
      }
      auto loaded = config::LoadExperiment(p.prior->run.experiment_path, registry, load);
      if (!loaded) return loaded.error();
      ex = std::move(*loaded);
    }
  }
  p.ex = std::move(*ex);
  {
    std::vector<NamedPath> outputs;
    for (const ExportFile& e : exports) outputs.push_back({e.option, e.path});
    outputs.insert(outputs.end(), args.other_outputs.begin(), args.other_outputs.end());
    if (auto st = CheckOutputs(RunInputs(p.ex, p.store_path), outputs); !st) return st.error();
  }
  // A resumed run goes on as it began: interleaved or not.
  p.ex.interleave = resuming ? p.prior->run.interleave : args.interleave;
  if (resuming && args.interleave && !p.prior->run.interleave) {
    fmt::print(stderr,
               "note: --interleave ignored: run {} was not interleaved, and a resumed run goes "
               "on as it began\n",
               p.prior->run.id);
  }
  auto cells = plan::Expand(p.ex, runtime::Registry(), workload::PlanNeeds());
  if (!cells) return cells.error();
  p.only = resuming ? p.prior->run.only : args.only;
  if (!p.only.empty()) {
    // The kld and divergence reference runs with any narrowed plan: the others need it.
    const std::string reference = config::ReferenceModel(p.ex.written.quality);
    cells = plan::Narrow(*cells, p.only, registry, reference);
    if (!cells) return cells.error();
  }
  p.cells = std::move(*cells);
  if (resuming) {
    auto rp = PlanResumeOf(*look, *p.prior, p.ex, registry, p.cells, args.retry_failed);
    if (!rp) return rp.error();
    p.resume = std::move(*rp);
  }
  return p;  // the read-only look ends here: nothing holds the store while this one waits
}

// --dry-run: the plan, and a time estimate from what the store measured before, if there is a
// store (read only: a dry run writes nothing).
int PrintDryRun(const RunPlan& p, const runtime::ParamRegistry& registry, device::Device& device) {
  if (p.resume) {
    PrintResumePlan(p.prior->run, p.cells, *p.resume);
    return 0;
  }
  PrintPlan(p.ex, p.cells, registry);
  PrintVariantPlan(p.ex, p.cells, device);
  ProcessCommandRunner converter;
  PrintConversionPlan(p.ex, p.cells, converter);
  std::error_code ec;
  if (!fs::exists(p.store_path, ec)) {
    fmt::print("estimate: none yet (no earlier runs in {})\n", p.store_path);
    return 0;
  }
  auto ro = store::Store::Open(p.store_path, store::OpenMode::kReadOnly);
  if (!ro) return 0;
  auto recent = (*ro)->RecentSamples(estimate::kHistorySamples);
  if (!recent) return 0;
  const estimate::Estimate e =
      workload::EstimateRun(p.ex, p.cells, registry, workload::MakeWorkloads(),
                            metrics::BuildHistory(*recent, workload::Derivers()));
  fmt::print(
      "estimate: about {} (model loads, speed tests, ppl, kld and gen) from earlier runs in {}",
      FormatDuration(e.seconds), p.store_path);
  if (e.uncovered > 0) {
    fmt::print(" ({} cell-test pair(s) never measured before are not counted)", e.uncovered);
  }
  fmt::print("\n");
  return 0;
}

// A resume with nothing left: its exit code says whether failed cells were kept.
int NothingLeft(const RunPlan& p) {
  fmt::print(
      stderr, "run {} has nothing left to measure: {} cell(s) complete{}\n", p.prior->run.id,
      p.resume->done.size(),
      p.resume->failed_kept > 0
          ? fmt::format(", {} failed (--retry-failed measures them again)", p.resume->failed_kept)
          : "");
  return p.resume->failed_kept > 0 ? 1 : 0;
}

// The device's facts, recorded before the cells; a resume must be on the device it began on.
Result<nlohmann::json> RecordDevice(const RunArgs& args, const Paths& paths, const RunPlan& p,
                                    device::Device& device, store::Store& store) {
  if (!args.no_bandwidth) {
    fmt::print(stderr, "recording the environment (memory bandwidth probe)\n");
  }
  nlohmann::json facts = device.Fingerprint(LocalFingerprintOptions(paths, args.no_bandwidth));
  if (p.resume) {
    auto then = store.Environment(p.prior->run.environment_id);
    if (then && then->fingerprint_id != env::FingerprintId(facts)) {
      return InputError(fmt::format(
          "cannot resume run {}: it was measured on another device (fingerprint {}, {}); this is "
          "{} ({}). Resume it there, or start a new run",
          p.prior->run.id, then->fingerprint_id, then->facts.value("cpu_model", "?"),
          env::FingerprintId(facts), facts.value("cpu_model", "?")));
    }
  }
  return facts;
}

// The model variants and conversions the cells need, made on this machine before the cells; a
// resume makes only those of the cells it measures, and they must be the files and the build the
// run measured with.
Status MakeModels(RunPlan& p, device::Device& device, const std::atomic<bool>* stop) {
  ProcessCommandRunner converter;
  if (!p.resume) {
    MakeVariantsFor(p.ex, device, &p.cells, stop);
    MakeConversionsFor(p.ex, converter, &p.cells, stop);
    return {};
  }
  std::vector<plan::Cell> todo;
  for (int i : p.resume->to_run) todo.push_back(p.cells[static_cast<size_t>(i)]);
  MakeVariantsFor(p.ex, device, &todo, stop);
  MakeConversionsFor(p.ex, converter, &todo, stop);
  for (const plan::Cell& c : todo) p.cells[static_cast<size_t>(c.index)] = c;
  return CheckSameFilesAndBuild(*p.prior, p.cells, *p.resume, device);
}

// What measuring the cells needs, from the steps before.
struct Measuring {
  const RunArgs& args;
  const Paths& paths;
  const RunPlan& plan;
  const runtime::ParamRegistry& registry;
  int64_t env_id;
  device::Device& device;
  store::Store& store;
  run::MeasureLock& lock;
  ExportingProgress& progress;
  env::ProcessTable& processes;
  const std::atomic<bool>* stop;
  // A resume's: the environment each other device had when it measured the run's cells there.
  std::optional<std::map<std::string, store::EnvironmentRecord>> device_environments;
};

// The cells, measured by the runner with this machine's dependencies and the experiment's other
// devices (opened when their first cell runs); the exports written however the run ended.
// `run_id` is the run's, or 0 where it could not begin.
Result<run::RunSummary> MeasureCells(const Measuring& m, int64_t* run_id) {
  const RunPlan& p = m.plan;
  run::RunnerDeps deps = LocalRunnerDeps(&m.device, &m.store, &m.progress, m.stop, &m.processes);
  RunDevices devices(m.device, m.store, m.paths.workers_dir, !m.args.no_bandwidth);
  if (m.device_environments) {
    devices.ExpectEnvironments(p.prior->run.id, *m.device_environments);
  }
  deps.open_device = [&](const config::DeviceSpec& s) { return devices.Open(s); };
  deps.worker_for = [&](const config::RuntimeSpec& r, device::Device& d) {
    return devices.WorkerFor(r, d);
  };
  deps.lock = m.lock.Record();
  deps.run_started = [&](int64_t id) {
    *run_id = id;
    m.lock.Describe({{"run_id", id}});
  };
  deps.only = p.only;
  deps.strict = m.args.strict;
  if (p.resume) deps.resume = &*p.resume;
  auto summary = run::RunExperiment(p.ex, p.cells, m.registry, m.env_id, deps);
  // The exports say how the run ended, whatever way it ended.
  if (*run_id > 0) m.progress.Export(*run_id);
  for (const std::string& line : devices.StagingSummary()) fmt::print(stderr, "{}\n", line);
  return summary;
}

// The run's table (md) on stdout, or stderr with --table-to-stderr, and a warning where its
// figures are noisy.
Status PrintTable(const RunArgs& args, const RunPlan& p, const runtime::ParamRegistry& registry,
                  store::Store& store, int64_t run_id, env::ProcessTable& processes) {
  auto data = report::LoadReportData(store, {run_id}, workload::Derivers(), &processes);
  if (!data) return data.error();
  std::ostream& table = args.table_to_stderr ? std::cerr : std::cout;
  table << "\n";
  auto md = report::FindFormat("md");
  (*md)->render(report::BuildReport(*data, registry, workload::Figures(), (*md)->parts), table);
  table.flush();
  WarnIfNoisy(*data, p.ex.path);
  return {};
}

// The closing lines: the store and the counts, each export written or why not, and what to run
// next. The exit code: 130 interrupted, 1 a cell failed or an export could not be written (the
// measurements are in the store), else 0.
int PrintRunEnd(const RunPlan& p, const run::RunSummary& summary, store::Store& store,
                const ExportingProgress& progress) {
  const int failed_kept = p.resume ? p.resume->failed_kept : 0;
  // The controller's own footprint, beside the workers' (docs/metrics.md "controller peak RSS").
  std::string controller_peak;
  if (auto hwm = env::OwnPeakRssBytes()) {
    if (auto st = store.NoteControllerPeakRss(summary.run_id, *hwm); !st) {
      fmt::print(stderr, "warning: {}\n", st.error().message);
    }
    controller_peak = fmt::format("; controller peak RSS {}", FormatBytes(double(*hwm)));
  }
  fmt::print(stderr, "\nstore: {} (run {}); {} cell(s) ok, {} failed{}{}{}\n", p.store_path,
             summary.run_id, summary.cells_ok, summary.cells_failed,
             summary.cells_kept + failed_kept > 0
                 ? fmt::format(", {} kept from before the resume ({} failed)",
                               summary.cells_kept + failed_kept, failed_kept)
                 : "",
             summary.interrupted ? ", interrupted" : "", controller_peak);
  // Only the exports written are called reports; each one that was not is named, with why.
  for (const ExportFile& e : progress.exports()) {
    if (const auto f = progress.failed().find(e.path); f != progress.failed().end()) {
      fmt::print(stderr, "error: report ({}) not written: {}\n", e.format, f->second);
    } else {
      fmt::print(stderr, "report ({}): {}\n", e.format, e.path);
    }
  }
  if (summary.interrupted) {
    fmt::print(stderr, "resume: build/pipette run {} --store {} --resume {}\n",
               ShellQuote(p.ex.path), ShellQuote(p.store_path), summary.run_id);
  }
  fmt::print(stderr, "more: build/pipette report --store {} --run {} --format {}\n",
             ShellQuote(p.store_path), summary.run_id, report::FormatList("|"));
  if (summary.interrupted) return 130;
  return summary.cells_failed + failed_kept > 0 || !progress.failed().empty() ? 1 : 0;
}

}  // namespace

int Run(const RunArgs& args, const Paths& paths, device::Device& device) {
  const runtime::ParamRegistry registry = runtime::ParamRegistry::Default();
  if (auto st = CheckRunArgs(args); !st) return Fail(st.error());
  auto exports = ExportsOf(args);
  if (!exports) return Fail(exports.error());
  env::LinuxProcessTable processes;
  auto planned = PlanRun(args, registry, ResolveOptionsHere(paths), *exports, processes);
  if (!planned) return Fail(planned.error());
  RunPlan& p = *planned;
  WarnRequantized(p.ex);
  for (const std::string& w : plan::LeftOut(p.ex, runtime::Registry())) {
    fmt::print(stderr, "note: {}\n", w);
  }
  if (args.dry_run) return PrintDryRun(p, registry, device);
  if (p.resume && p.resume->to_run.empty()) return NothingLeft(p);

  // The lock first: a run that waits, or is refused, has written nothing.
  const std::atomic<bool>* stop = StopOnSignals();
  auto lock = TakeMeasureLock({args.no_wait, args.lock_timeout_s}, "pipette run " + p.ex.path,
                              p.store_path, processes, stop);
  if (!lock) return Fail(lock.error());
  auto opened = OpenStoreForWriting(p.store_path, processes);
  if (!opened) return Fail(opened.error());
  std::unique_ptr<store::Store> store = std::move(*opened);
  if (p.resume) {
    // Read and planned again under the lock: another resume may have measured it meanwhile.
    auto r = ReadRunToResume(*store, p.prior->run.id, processes);
    if (!r) return Fail(r.error());
    p.prior = std::move(*r);
    auto rp = PlanResumeOf(*store, *p.prior, p.ex, registry, p.cells, args.retry_failed);
    if (!rp) return Fail(rp.error());
    p.resume = std::move(*rp);
    if (p.resume->to_run.empty()) return NothingLeft(p);
    fmt::print(stderr, "pipette {}: resuming run {}: {} of {} cell(s) to measure from {}\n",
               kPipetteVersion, p.prior->run.id, p.resume->to_run.size(), p.cells.size(),
               p.ex.path);
  } else {
    fmt::print(stderr, "pipette {}: {} cell(s) from {}\n", kPipetteVersion, p.cells.size(),
               p.ex.path);
  }
  auto facts = RecordDevice(args, paths, p, device, *store);
  if (!facts) return Fail(facts.error());
  if (auto st = MakeModels(p, device, stop); !st) return Fail(st.error());
  auto env_id = store->AddEnvironment({0, env::FingerprintId(*facts), *facts});
  if (!env_id) return FailInput(env_id.error());  // nothing measured, no run written

  // The cells, then the table.
  ExportingProgress progress(store.get(), std::move(*exports), &processes, registry);
  Measuring measuring{args,   paths,  p,        registry,  *env_id, device,
                      *store, **lock, progress, processes, stop,    std::nullopt};
  if (p.resume) {
    auto then = DeviceEnvironmentsOf(*store, *p.prior);
    if (!then) return Fail(then.error());
    measuring.device_environments = std::move(*then);
  }
  int64_t run_id = 0;
  auto summary = MeasureCells(measuring, &run_id);
  // A run that could not begin (the store refused it) measured nothing: bad input, like any
  // refusal before the first cell.
  if (!summary) return run_id > 0 ? Fail(summary.error()) : FailInput(summary.error());
  if (auto st = PrintTable(args, p, registry, *store, summary->run_id, processes); !st) {
    return Fail(st.error());
  }
  return PrintRunEnd(p, *summary, *store, progress);
}

}  // namespace pipette::app
