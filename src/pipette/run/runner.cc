// The run loop: the cells in plan order (in rounds with --interleave), each opened in the store,
// measured (run/cell_measurement.h) on its device (run/device_session.h) by its worker
// (run/worker_session.h), and finished with its status and derived rows.
#include "pipette/run/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>

#include "pipette/build_info.h"
#include "pipette/metrics/history.h"
#include "pipette/metrics/row_cache.h"
#include "pipette/run/cell_measurement.h"
#include "pipette/run/device_session.h"
#include "pipette/run/tokenizer_reference.h"
#include "pipette/run/worker_session.h"
#include "pipette/workload/planned_work.h"

namespace pipette::run {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using workload::Failed;
using workload::RunError;
using workload::RunStatus;

WorkerSessionDeps WorkerDeps(const config::Experiment& ex, const RunnerDeps& deps) {
  WorkerSessionDeps w;
  w.local = deps.device;
  w.runtimes = deps.runtimes;
  w.worker_for = deps.worker_for;
  w.http = deps.http;
  w.stop = deps.stop;
  w.tokenizer_program = ex.source_tokenizer;
  w.timeout = milliseconds(static_cast<int64_t>(ex.timeout_s * 1000));
  return w;
}

DeviceSessionDeps DeviceDeps(const RunnerDeps& deps) {
  DeviceSessionDeps d;
  d.local = deps.device;
  d.open_device = deps.open_device;
  d.ready_probe = deps.ready_probe;
  d.clock = deps.clock;
  d.strict = deps.strict;
  d.stop = deps.stop;
  return d;
}

class Runner {
 public:
  Runner(const config::Experiment& ex, const std::vector<plan::Cell>& cells,
         const runtime::ParamRegistry& registry, int64_t environment_id, RunnerDeps deps)
      : ex_(ex),
        cells_(cells),
        registry_(registry),
        deps_(std::move(deps)),
        environment_id_(environment_id),
        worker_(WorkerDeps(ex, deps_)),
        devices_(ex, DeviceDeps(deps_), environment_id),
        workloads_(deps_.workloads()),
        derivers_(*deps_.derivers),
        parts_{ex_,
               cells_,
               registry_,
               *deps_.store,
               deps_.progress,
               *deps_.device,
               deps_.stop,
               eta_,
               worker_,
               devices_,
               workloads_,
               tokenizer_reference_,
               [this] { NoteOtherPipettes(); }} {}

  Result<RunSummary> Run() {
    if (deps_.resume) {
      summary_.run_id = deps_.resume->run_id;
      if (auto st = deps_.store->ResumeRun(summary_.run_id, deps_.resume->resumes_seen,
                                           deps_.controller, deps_.lock);
          !st) {
        return st.error();
      }
      summary_.cells_kept = static_cast<int>(deps_.resume->done.size());
      for (auto& w : workloads_) {
        auto it = deps_.resume->workload_state.find(w->Name());
        if (it != deps_.resume->workload_state.end()) w->Resume(it->second);
      }
    } else if (auto st = BeginRun(); !st) {
      return st.error();
    }
    if (deps_.run_started) deps_.run_started(summary_.run_id);
    PlanEta();
    // One visit of every cell, or (--interleave: config::Experiment::interleave) one per
    // measured repetition, in rounds (repetition r of every cell, then r+1). A cell's first visit
    // runs all of it (load, quality, memory, its first repetition); each later one reloads its
    // model where the worker holds another and runs the next repetition of the workloads that
    // interleave, after their warm-ups. A cell finishes at its last visit.
    const int visits = ex_.interleave ? std::max(1, ex_.repetitions) : 1;
    for (int v = 0; v < visits && !summary_.interrupted; ++v) {
      visit_ = {v, visits};
      for (const plan::Cell& cell : cells_) {
        if (!ToRun(cell) || (v > 0 && !open_.count(cell.index))) continue;
        if (Stopped()) {
          summary_.interrupted = true;
          break;
        }
        auto st = v == 0 ? RunCell(cell) : VisitCell(cell);
        if (!st) {  // only store errors end the run; say so in the store if it still answers
          (void)CloseOpenCells("the run stopped before its last round: " + st.error().message);
          worker_.Shutdown(milliseconds(2000));
          FinishWorkloads();
          summary_.status = "failed";
          (void)deps_.store->FinishRun(summary_.run_id, summary_.status);
          return AtCell(st.error(), cell);
        }
      }
    }
    // Interleaved cells an interruption left between visits: interrupted, with what they have.
    if (auto st = CloseOpenCells("interrupted between the rounds of --interleave"); !st) {
      return st.error();
    }
    worker_.Shutdown(milliseconds(3000));
    FinishWorkloads();
    summary_.status = summary_.interrupted ? "interrupted" : "done";
    if (auto st = deps_.store->FinishRun(summary_.run_id, summary_.status); !st) {
      return st.error();
    }
    return summary_;
  }

 private:
  bool Stopped() const { return deps_.stop && deps_.stop->load(); }

  // `e` with the cell it happened in as its context (the message is unchanged).
  static Error AtCell(Error e, const plan::Cell& cell) {
    e.context.cell = cell.Key();
    return e;
  }

  Status BeginRun() {
    store::RunRecord run;
    run.name = ex_.name;
    run.experiment_path = ex_.path;
    run.config_hash = ex_.Hash();
    run.config_text = ex_.source_text;
    run.config_canonical = ex_.Resolved().dump();  // beside the hash, not in it
    run.pipette_version = kPipetteVersion;
    run.pipette_commit = kPipetteCommit;
    run.environment_id = environment_id_;
    run.n_cells = static_cast<int64_t>(cells_.size());
    run.controller = deps_.controller;
    run.lock = deps_.lock;
    run.only = deps_.only;
    run.interleave = ex_.interleave && ex_.repetitions > 1;  // one repetition: no rounds
    auto run_id = deps_.store->BeginRun(run);
    if (!run_id) return run_id.error();
    summary_.run_id = *run_id;
    return {};
  }

  // Without a resume every cell runs; with one, only those it names.
  bool ToRun(const plan::Cell& cell) const {
    if (!deps_.resume) return true;
    const auto& r = deps_.resume->to_run;
    return std::find(r.begin(), r.end(), cell.index) != r.end();
  }

  void FinishWorkloads() {
    for (auto& w : workloads_) w->Finish();
    tokenizer_reference_.Stop();
  }

  // Other Pipette workers seen on the machine during this cell: looked for at its start, at the
  // end of each phase and at its end.
  void NoteOtherPipettes() {
    // Another Pipette on this machine disturbs only the cells measured here.
    if (!deps_.other_pipettes || !on_this_machine_) return;
    for (const json& o : deps_.other_pipettes()) {
      if (std::find(others_.begin(), others_.end(), o) == others_.end()) others_.push_back(o);
    }
  }

  // The time estimator starts from what this store measured before (the plan's estimate) and
  // learns this run's rates as it goes.
  void PlanEta() {
    estimate::History history;
    if (auto recent = deps_.store->RecentSamples(estimate::kHistorySamples))
      history = metrics::BuildHistory(*recent, derivers_);
    eta_ = estimate::Estimator(std::move(history));
    for (const estimate::Work& w : workload::PlannedWork(
             ex_, cells_, registry_, workloads_, [&](const plan::Cell& c) { return ToRun(c); })) {
      eta_.Plan(w);
    }
  }

  // The cell's record as it begins: what it is, where, and the facts of its model file.
  store::CellRecord NewRecord(const plan::Cell& cell) const {
    store::CellRecord rec;
    rec.run_id = summary_.run_id;
    rec.index = cell.index;
    rec.key = cell.Key();
    rec.model_name = cell.model.name;
    rec.model_path = cell.model.path;
    rec.model_source = cell.model.source;
    rec.runtime = cell.runtime.name;
    for (const auto& [k, v] : cell.params) {
      if (const runtime::ParamDef* def = registry_.Find(k)) {
        rec.params[k] = runtime::ParamRegistry::ToJson(*def, v);
      }
    }
    if (!cell.model.provenance.is_null()) rec.model_info["provenance"] = cell.model.provenance;
    return rec;
  }

  // A cell's first visit: its record begun in the store, its device entered (cooled down
  // first), measured, and finished unless it is interleaved and has visits to come.
  Status RunCell(const plan::Cell& cell) {
    store::CellRecord rec = NewRecord(cell);
    // The cell's device: this machine, or another opened when its first cell runs.
    auto at = devices_.Enter(cell);
    on_this_machine_ = cell.device.kind == "local";  // a tier of this machine too
    rec.environment_id = at ? at->environment_id : environment_id_;
    const json cooled = at ? devices_.CoolDownBefore() : json::object();
    if (at && !cell.device.IsLocal()) {
      rec.conditions = devices_.Current()->Conditions();
    } else {
      rec.conditions = deps_.conditions ? deps_.conditions() : json::object();
    }
    rec.conditions.update(cooled);
    others_ = json::array();
    NoteOtherPipettes();
    if (!others_.empty()) rec.conditions["other_pipette"] = others_;
    auto facts = cell.model.unavailable.empty() ? Facts(cell.model.path)
                                                : Result<ModelFacts>(Error{cell.model.unavailable});
    if (facts) {
      rec.model_sha256 = facts->sha256;
      rec.model_file_size = facts->file_size;
      rec.model_info["file"] = facts->info;
    }
    std::optional<int64_t> supersedes;
    if (deps_.resume) {
      if (auto it = deps_.resume->supersede.find(cell.index); it != deps_.resume->supersede.end()) {
        supersedes = it->second;
      }
    }
    auto id = deps_.store->BeginCell(rec, supersedes);
    if (!id) return id.error();
    rec.id = *id;

    devices_.ClearTier();
    const RunStatus measured = !at     ? Failed(at.error().message)
                               : facts ? Measure(parts_, cell, rec, visit_)
                                       : Failed(facts.error().message);
    const json tier_end = KeepTierReading(rec);
    if (measured && visit_.count > 1) {
      // Interleaved: the cell stays open (running) until its last visit.
      NoteOtherPipettes();
      if (!others_.empty()) rec.conditions["other_pipette"] = others_;
      if (auto st = deps_.store->UpdateCell(rec); !st) return st;
      open_[cell.index] = rec;
      return {};
    }
    return FinishCell(cell, rec, measured, measured ? json() : devices_.OomEnd(tier_end), bool(at));
  }

  // A later visit of an interleaved cell (--interleave): measured again (cell_measurement.h).
  // The last visit, or a failed one, finishes the cell.
  Status VisitCell(const plan::Cell& cell) {
    store::CellRecord rec = open_.at(cell.index);
    auto at = devices_.Enter(cell);
    on_this_machine_ = cell.device.kind == "local";
    others_ = rec.conditions.value("other_pipette", json::array());
    // The experiment's cooldown before every visit, as before every cell; each visit's kept.
    if (at) {
      const json cooled = devices_.CoolDownBefore();
      if (!cooled.empty()) rec.conditions["visit_cooldowns"].push_back(cooled);
    }
    NoteOtherPipettes();
    devices_.ClearTier();
    RunStatus measured = at ? Measure(parts_, cell, rec, visit_) : Failed(at.error().message);
    // A worker the kernel killed for its tier's memory cap: "oom", as at a first visit.
    const json oom_end = measured ? json() : devices_.OomEnd(devices_.TierEnd());
    if (!measured) {
      RunError e = measured.error();
      e.message = fmt::format("visit {} of {} (--interleave): {}", visit_.index + 1, visit_.count,
                              e.message);
      measured = e;
    }
    if (measured && visit_.index + 1 < visit_.count) {
      if (!others_.empty()) rec.conditions["other_pipette"] = others_;
      open_[cell.index] = rec;
      return {};
    }
    open_.erase(cell.index);
    return FinishCell(cell, rec, measured, oom_end, bool(at));
  }

  // The interleaved cells still open (between their visits) when the run ends early: finished
  // as interrupted with `why`, keeping what they measured, each with its own conditions.
  Status CloseOpenCells(const std::string& why) {
    Status result;
    while (!open_.empty()) {
      const int index = open_.begin()->first;
      store::CellRecord rec = open_.begin()->second;
      open_.erase(open_.begin());
      const auto cell = std::find_if(cells_.begin(), cells_.end(),
                                     [&](const plan::Cell& c) { return c.index == index; });
      if (cell == cells_.end()) continue;
      others_ = rec.conditions.value("other_pipette", json::array());
      on_this_machine_ = cell->device.kind == "local";
      rec.status = "interrupted";
      rec.error = why;
      rec.finished_at = store::NowIso8601();
      summary_.interrupted = true;
      if (auto st = deps_.store->UpdateCell(rec); !st) {
        result = st;
        continue;
      }
      if (auto st = metrics::StoreDerivedRows(*deps_.store, rec, derivers_); !st) result = st;
      if (deps_.progress) deps_.progress->CellFinished(*cell, int(cells_.size()), rec);
    }
    return result;
  }

  // The end of a cell: its status from how it was measured (`oom_end`: the tier's reading when
  // the kernel killed the worker for its memory cap, else null), the other Pipettes seen during
  // it, stored with its derived rows, and the progress told. `device_opened`: its device was
  // opened (a worker may be in an unknown state).
  Status FinishCell(const plan::Cell& cell, store::CellRecord& rec, const RunStatus& measured,
                    const json& oom_end, bool device_opened) {
    if (!measured) {
      // Ctrl-C reaches the worker too; the cell it cut short is "interrupted", not "failed"; a
      // worker the kernel killed for its tier's memory cap is "oom", with the peak it reached.
      const bool oom = !oom_end.is_null();
      rec.status = Stopped() ? "interrupted" : oom ? "oom" : "failed";
      rec.error = oom ? DeviceSession::OomError(oom_end, measured.error().message)
                      : measured.error().message;
      if (device_opened && !Stopped()) devices_.NoteLinkDropped(cell, rec.error);
      // A worker in an unknown state never serves the next cell (a device that could not be
      // opened started none: the worker of the cell before stays).
      if (device_opened) {
        if (worker_.Held()) rec.stderr_tail = worker_.Channel().StderrTail();
        worker_.Shutdown(milliseconds(2000));
      }
      if (Stopped()) {
        summary_.interrupted = true;
      } else {
        ++summary_.cells_failed;
        summary_.failures.push_back(AtCell(measured.error(), cell));
      }
    } else {
      rec.status = "ok";
      ++summary_.cells_ok;
    }
    // Another Pipette that started measuring during the cell is named too.
    NoteOtherPipettes();
    if (!others_.empty()) rec.conditions["other_pipette"] = others_;
    // The readiness gate's refusal, where it failed the cell: its figures are not to be trusted.
    if (std::string why = devices_.TakeNotReady(); !why.empty()) rec.conditions["not_ready"] = why;
    rec.finished_at = store::NowIso8601();
    if (auto st = deps_.store->UpdateCell(rec); !st) return st;
    // Its figures, derived once now for every later report (metrics/row_cache.h).
    if (auto st = metrics::StoreDerivedRows(*deps_.store, rec, derivers_); !st) return st;
    if (deps_.progress) deps_.progress->CellFinished(cell, int(cells_.size()), rec);
    if (!devices_.StrictRefusal().empty()) {
      return RuntimeError(fmt::format(
          "--strict: the device was not ready for cell {} ({}): {}. The run stops here; without "
          "--strict that cell fails and the run goes on",
          cell.index + 1, cell.label, devices_.StrictRefusal()));
    }
    return {};
  }

  // A tier's readings of the cell's worker at the cell's end, stored beside those of its start
  // (the `tier` sample): its throttling, its memory peak against its cap, its CPUs. Null without
  // a tier.
  json KeepTierReading(const store::CellRecord& rec) {
    json reading = devices_.TierEnd();
    if (reading.is_null()) return reading;
    (void)KeepSample(*deps_.store, rec, "tier", 0, false,
                     {{"start", devices_.TierStart()}, {"end", reading}});
    return reading;
  }

  Result<ModelFacts> Facts(const std::string& path) {
    auto it = facts_.find(path);
    if (it != facts_.end()) return it->second;
    if (!deps_.model_facts) return ModelFacts{};
    auto f = deps_.model_facts(path);
    if (f) facts_[path] = *f;
    return f;
  }

  const config::Experiment& ex_;
  const std::vector<plan::Cell>& cells_;
  const runtime::ParamRegistry& registry_;
  RunnerDeps deps_;
  int64_t environment_id_ = 0;
  RunSummary summary_;
  estimate::Estimator eta_;
  TokenizerReference tokenizer_reference_;  // a converted model's source, to check its tokenizer
  WorkerSession worker_;                    // the current cell's worker
  DeviceSession devices_;                   // the current cell's device, and the others
  std::vector<std::unique_ptr<workload::Workload>> workloads_;  // deps_.workloads(), in order
  const metrics::RowDerivers& derivers_;  // what derives a finished cell's rows (deps_)
  MeasureParts parts_;                    // what a cell's measurement uses of the above
  std::map<std::string, ModelFacts> facts_;
  bool on_this_machine_ = true;  // the current cell's device is this machine
  json others_ = json::array();  // other Pipette workers seen during the current cell
  workload::Visit visit_;        // --interleave: the round the run is in
  // --interleave: the cells measured at their first visit and not finished yet, by index.
  std::map<int, store::CellRecord> open_;
};

}  // namespace

Result<RunSummary> RunExperiment(const config::Experiment& ex, const std::vector<plan::Cell>& cells,
                                 const runtime::ParamRegistry& registry, int64_t environment_id,
                                 RunnerDeps deps) {
  if (!deps.workloads || !deps.derivers) {
    return RuntimeError("the runner was given no workloads or derivers (RunnerDeps)");
  }
  if (!deps.device || !deps.store) return RuntimeError("the runner was given no device or store");
  Runner runner(ex, cells, registry, environment_id, std::move(deps));
  return runner.Run();
}

}  // namespace pipette::run
