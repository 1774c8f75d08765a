#include "pipette/run/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>

#include "pipette/build_info.h"
#include "pipette/endpoint/channel.h"
#include "pipette/env/cgroup_tier.h"
#include "pipette/metrics/history.h"
#include "pipette/metrics/row_cache.h"
#include "pipette/protocol/model_ops.h"
#include "pipette/protocol/session_ops.h"
#include "pipette/protocol/version.h"
#include "pipette/run/runtime_params.h"
#include "pipette/run/tokenizer_reference.h"
#include "pipette/runtime/ops.h"
#include "pipette/runtime/registry.h"
#include "pipette/util/strings.h"
#include "pipette/workload/planned_work.h"
#include "pipette/workload/registry.h"

namespace pipette::run {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using workload::Broken;
using workload::Failed;
using workload::FromCall;
using workload::RawFacts;
using workload::RunError;
using workload::RunStatus;

class Runner {
 public:
  Runner(const config::Experiment& ex, const std::vector<plan::Cell>& cells,
         const runtime::ParamRegistry& registry, RunnerDeps deps)
      : ex_(ex),
        cells_(cells),
        registry_(registry),
        deps_(std::move(deps)),
        workloads_(workload::MakeWorkloads()) {
    for (const auto& w : workloads_) derivers_.push_back(w.get());
  }

  Result<RunSummary> Run(int64_t environment_id) {
    environment_id_ = environment_id;
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
    } else {
      store::RunRecord run;
      run.name = ex_.name;
      run.experiment_path = ex_.path;
      run.config_hash = ex_.Hash();
      run.config_text = ex_.source_text;
      run.config_canonical = ex_.Resolved().dump();  // beside the hash, not in it
      run.pipette_version = kPipetteVersion;
      run.pipette_commit = kPipetteCommit;
      run.environment_id = environment_id;
      run.n_cells = static_cast<int64_t>(cells_.size());
      run.controller = deps_.controller;
      run.lock = deps_.lock;
      run.only = deps_.only;
      run.interleave = ex_.interleave && ex_.repetitions > 1;  // one repetition: no rounds
      auto run_id = deps_.store->BeginRun(run);
      if (!run_id) return run_id.error();
      summary_.run_id = *run_id;
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
          if (channel_) channel_->Shutdown(milliseconds(2000));
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
    if (channel_) channel_->Shutdown(milliseconds(3000));
    channel_.reset();
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

  // One phase of a cell, announced to the progress sink at its start and its end.
  template <class F>
  RunStatus Phase(const plan::Cell& cell, const std::string& name, F&& body) {
    if (deps_.progress) deps_.progress->PhaseStarted(cell, int(cells_.size()), name);
    const auto t0 = std::chrono::steady_clock::now();
    RunStatus e = body();
    NoteOtherPipettes();
    if (e && deps_.progress) {
      deps_.progress->PhaseFinished(cell, int(cells_.size()), name, SecondsSince(t0),
                                    eta_.FractionDone(), eta_.SecondsLeft());
    }
    return e;
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

  Status RunCell(const plan::Cell& cell) {
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
    // The cell's device: this machine, or another opened when its first cell runs.
    auto at = DeviceFor(cell);
    dev_ = at ? at->device : nullptr;
    on_this_machine_ = cell.device.kind == "local";  // a tier of this machine too
    rec.environment_id = at ? at->environment_id : environment_id_;
    const json cooled = at ? CoolDownBefore() : json::object();
    if (at && !cell.device.IsLocal()) {
      rec.conditions = dev_->Conditions();
    } else {
      rec.conditions = deps_.conditions ? deps_.conditions() : json::object();
    }
    rec.conditions.update(cooled);
    others_ = json::array();
    na_count_ = 0;
    NoteOtherPipettes();
    if (!others_.empty()) rec.conditions["other_pipette"] = others_;
    if (!cell.model.provenance.is_null()) rec.model_info["provenance"] = cell.model.provenance;
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

    tier_start_ = json();
    const RunStatus measured = !at     ? Failed(at.error().message)
                               : facts ? Measure(cell, rec)
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
    return FinishCell(cell, rec, measured,
                      !measured && env::OomKilled(tier_start_, tier_end) ? tier_end : json(),
                      bool(at));
  }

  // A later visit of an interleaved cell (--interleave): its model loaded again where the worker
  // holds another, a fresh context, and the next measured repetition of the workloads that
  // interleave (Workload::Interleaves), each after its warm-ups. The last visit, or a failed one,
  // finishes the cell.
  Status VisitCell(const plan::Cell& cell) {
    store::CellRecord rec = open_.at(cell.index);
    auto at = DeviceFor(cell);
    dev_ = at ? at->device : nullptr;
    on_this_machine_ = cell.device.kind == "local";
    others_ = rec.conditions.value("other_pipette", json::array());
    // The experiment's cooldown before every visit, as before every cell; each visit's kept.
    if (at) {
      const json cooled = CoolDownBefore();
      if (!cooled.empty()) rec.conditions["visit_cooldowns"].push_back(cooled);
    }
    NoteOtherPipettes();
    tier_start_ = json();
    RunStatus measured = at ? Revisit(cell, rec) : Failed(at.error().message);
    // A worker the kernel killed for its tier's memory cap: "oom", as at a first visit.
    json oom_end;
    if (!measured && !tier_start_.is_null() && dev_) {
      auto end = dev_->TierReading(tier_pid_, false);
      if (end && env::OomKilled(tier_start_, *end)) oom_end = *end;
    }
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

  RunStatus Revisit(const plan::Cell& cell, const store::CellRecord& rec) {
    if (channel_ && cell.LoadKey(registry_) != loaded_key_) {
      channel_->Shutdown(milliseconds(2000));
      channel_.reset();
      loaded_key_.clear();
    }
    if (auto st = EnsureWorker(cell); !st) return st;
    if (deps_.progress) deps_.progress->CellStarted(cell, int(cells_.size()), channel_->Pid());
    if (!cell.runtime.endpoint) {  // what tells an OOM kill during this visit (not stored)
      auto tier = dev_->TierReading(hello_.pid, false);
      if (tier) {
        tier_start_ = *tier;
        tier_pid_ = hello_.pid;
      }
    }
    const std::string load_key = cell.LoadKey(registry_);
    if (load_key != loaded_key_) {
      auto loaded = Phase(cell, "load model", [&]() -> RunStatus {
        const auto t0 = std::chrono::steady_clock::now();
        auto staged = dev_->Stage(cell.model.path);
        if (!staged) return Failed(staged.error().message);
        auto resp = Call(LoadRequest(cell, registry_, *staged));
        if (!resp) return resp.error();
        auto typed = protocol::LoadModelResponse::FromJson(*resp);
        if (!typed) return Broken(typed.error().message);
        eta_.Done(estimate::DeviceKind("load", cell.device.IsLocal() ? "" : cell.device.name), 1,
                  SecondsSince(t0));
        // Not stored: the cell's load sample is its first visit's.
        model_runtime_info_ = (*resp)["model"];
        model_ = typed->model;
        load_applied_ = AppliedLoadParams(typed->applied, registry_, cell.runtime.name);
        loaded_key_ = load_key;
        load_cell_id_ = rec.id;
        return {};
      });
      if (!loaded) return loaded;
    }
    auto made = Call(ContextRequest(cell, registry_));
    if (!made) return made.error();
    auto typed_ctx = protocol::InitContextResponse::FromJson(*made);
    if (!typed_ctx) return Broken(typed_ctx.error().message);
    applied_n_batch_ = typed_ctx->n_batch;
    if (auto planned = AppliedAsPlanned(cell, load_applied_, *made, registry_); !planned) {
      return Failed(planned.error().message);
    }
    CellContext wctx(*this, cell, rec);
    for (auto& w : workloads_) {
      if (!w->Interleaves()) continue;
      const std::vector<workload::Phase> phases = w->Phases(ex_);
      for (size_t i = 0; i < phases.size(); ++i) {
        if (Unserved(phases[i].ops, cell)) continue;  // stored as n/a at the first visit
        if (auto st = Phase(cell, phases[i].name, [&] { return w->Run(wctx, i); }); !st) {
          return st;
        }
      }
    }
    return {};
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
      rec.error = oom ? OomError(oom_end, measured.error().message) : measured.error().message;
      if (device_opened && !Stopped()) NoteLinkDropped(cell, rec);
      // A worker in an unknown state never serves the next cell (a device that could not be
      // opened started none: the worker of the cell before stays).
      if (device_opened) {
        if (channel_) rec.stderr_tail = channel_->StderrTail();
        if (channel_) channel_->Shutdown(milliseconds(2000));
        channel_.reset();
        loaded_key_.clear();
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
    if (!not_ready_.empty()) rec.conditions["not_ready"] = not_ready_;
    not_ready_.clear();
    rec.finished_at = store::NowIso8601();
    if (auto st = deps_.store->UpdateCell(rec); !st) return st;
    // Its figures, derived once now for every later report (metrics/row_cache.h).
    if (auto st = metrics::StoreDerivedRows(*deps_.store, rec, derivers_); !st) return st;
    if (deps_.progress) deps_.progress->CellFinished(cell, int(cells_.size()), rec);
    if (!strict_refusal_.empty()) {
      return RuntimeError(fmt::format(
          "--strict: the device was not ready for cell {} ({}): {}. The run stops here; without "
          "--strict that cell fails and the run goes on",
          cell.index + 1, cell.label, strict_refusal_));
    }
    return {};
  }

  // A tier's readings of the cell's worker at the cell's end, stored beside those of its start
  // (the `tier` sample): its throttling, its memory peak against its cap, its CPUs. Null without
  // a tier.
  json KeepTierReading(const store::CellRecord& rec) {
    if (tier_start_.is_null() || !dev_) return json();
    auto end = dev_->TierReading(tier_pid_, false);
    json reading = end ? *end : json{{"na", end.error().message}};
    (void)Keep(rec, "tier", 0, false, {{"start", tier_start_}, {"end", reading}});
    return reading;
  }

  static std::string OomError(const json& end, const std::string& failure) {
    auto bytes = [](std::optional<int64_t> n) {
      return n ? FormatBytes(double(*n)) : std::string("?");
    };
    return fmt::format(
        "over its tier's memory cap of {}: the kernel killed the worker at a peak of {} "
        "(the worker's last word: {})",
        bytes(env::TierCapBytes(end)), bytes(env::TierPeakBytes(end)), failure);
  }

  // The readiness gate's probe of the current cell's device, made once; nullptr without one.
  ReadyProbe* Probe() {
    if (!dev_ || !deps_.ready_probe) return nullptr;
    auto& probe = probes_[dev_];
    if (!probe) probe = deps_.ready_probe(*dev_);
    return probe.get();
  }

  // Before a cell, before its conditions are read: the first on its device notes the
  // temperature there (for `cooldown: temperature`); a later one cools down first. What it did,
  // for the cell's conditions ({} when the experiment has no cooldown).
  json CoolDownBefore() {
    const config::CooldownSpec& c = ex_.cooldown;
    if (c.seconds <= 0 && !c.until_start_temperature) return json::object();
    ReadyProbe* probe = Probe();
    const config::ReadySpec limits = ex_.ready.value_or(config::ReadySpec{});
    if (!cells_begun_.count(dev_)) {
      cells_begun_.insert(dev_);
      if (!c.until_start_temperature || !probe) return json::object();
      auto look = probe->Look(limits.window_s);
      if (!look) return {{"cooldown", {{"error", look.error().message}}}};
      start_temp_[dev_] = look->temp_c;
      return {{"start_temp_c", look->temp_c ? json(*look->temp_c) : json(nullptr)}};
    }
    config::CooldownSpec spec = c;
    if (!probe) spec.until_start_temperature = false;  // nothing to look with: by time alone
    NullProbe none;
    auto done = CoolDown(spec, start_temp_[dev_], limits, probe ? *probe : none, deps_.clock,
                         [this] { return Stopped(); });
    if (!done) return {{"cooldown", {{"error", done.error().message}}}};
    return {{"cooldown", done->ToJson()}};
  }

  // The gate before a measured repetition: null without `ready:`; not ready by the deadline
  // fails the cell (with --strict, the run too).
  Result<json, RunError> Ready() {
    if (!ex_.ready) return json(nullptr);
    ReadyProbe* probe = Probe();
    if (!probe) return json(nullptr);
    auto found = WaitUntilReady(*ex_.ready, *probe, deps_.clock, [this] { return Stopped(); });
    if (!found)
      return Failed("the readiness gate could not look at the device: " + found.error().message);
    if (Stopped()) return Failed("interrupted");
    if (!found->ready) {
      if (deps_.strict) strict_refusal_ = found->reason;
      not_ready_ = found->reason;
      return Failed(found->reason);
    }
    return found->ToJson();
  }

  // Energy around a measured repetition (workload::Context::EnergyMark): the device's sensors
  // read through its probe; a device found without an energy source is not read again, one whose
  // reading failed is tried again at the next repetition.
  std::optional<env::Sensors> EnergyMark() {
    ReadyProbe* probe = Probe();
    if (!probe) return std::nullopt;
    energy_read_error_.clear();
    std::string& none = no_energy_[dev_];
    if (!none.empty()) return std::nullopt;
    auto sensors = probe->ReadSensors();
    if (!sensors) {
      energy_read_error_ = "reading the sensors before the repetition: " + sensors.error().message;
      return std::nullopt;
    }
    if (!env::HasEnergySource(*sensors)) {
      none = env::EnergyFacts(*sensors, *sensors, 0).value("na", std::string("no energy source"));
      return std::nullopt;
    }
    return std::move(*sensors);
  }
  json EnergySince(const std::optional<env::Sensors>& mark, double seconds) {
    ReadyProbe* probe = Probe();
    if (!probe) return nullptr;
    json energy;
    if (!mark) {
      auto none = no_energy_.find(dev_);
      if (!energy_read_error_.empty()) {
        energy = {{"na", energy_read_error_}};
      } else if (none == no_energy_.end() || none->second.empty()) {
        return nullptr;
      } else {
        energy = {{"na", none->second}};
      }
    } else {
      // The counters are read last: the span is from the first reading's end to the second's.
      const auto t0 = std::chrono::steady_clock::now();
      auto after = probe->ReadSensors();
      const double read_s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      energy =
          after
              ? env::EnergyFacts(*mark, *after, seconds + read_s)
              : json{{"na", "reading the sensors after the repetition: " + after.error().message}};
    }
    if (!probe->SensorsRoot().empty()) energy["sensors_root"] = probe->SensorsRoot();
    return energy;
  }

  // A probe that sees nothing (no device to look at): cooldowns by time alone.
  struct NullProbe : ReadyProbe {
    Result<ReadyLook> Look(double) override { return ReadyLook{}; }
  };

  // The device of `cell`: this machine, or one of the others, opened once; one that could not be
  // opened, or whose link dropped, fails the rest of its cells at once.
  Result<OpenDevice> DeviceFor(const plan::Cell& cell) {
    if (cell.device.IsLocal() || !deps_.open_device) {
      return OpenDevice{deps_.device, environment_id_};
    }
    const std::string& name = cell.device.name;
    if (auto it = down_.find(name); it != down_.end()) return RuntimeError(it->second);
    if (auto it = opened_.find(name); it != opened_.end()) return it->second;
    auto opened = deps_.open_device(cell.device);
    if (!opened) {
      down_[name] = fmt::format("device '{}' ({}) cannot run cells: {}", name,
                                cell.device.Address(), opened.error().message);
      return RuntimeError(down_[name]);
    }
    opened_[name] = *opened;
    return *opened;
  }

  // After a cell on another device failed: a link that no longer answers is the reason, said
  // first, and the device's later cells fail at once instead of each waiting for it.
  void NoteLinkDropped(const plan::Cell& cell, store::CellRecord& rec) {
    if (cell.device.IsLocal() || !dev_ || down_.count(cell.device.name)) return;
    auto link = dev_->CheckLink();
    if (link) return;
    rec.error = fmt::format("link to device '{}' dropped: {} (the cell failed with: {})",
                            cell.device.name, link.error().message, rec.error);
    down_[cell.device.name] =
        fmt::format("link to device '{}' dropped during cell {} ({}): {}", cell.device.name,
                    cell.index + 1, cell.label, link.error().message);
  }

  // The worker program of the cell's runtime for its device.
  Result<std::string> WorkerFor(const plan::Cell& cell) {
    // A tier of this machine runs this machine's own workers.
    if (!deps_.worker_for || (cell.device.kind == "local" && cell.device.Tiered())) {
      return cell.runtime.worker;
    }
    return deps_.worker_for(cell.runtime, *dev_);
  }

  Result<ModelFacts> Facts(const std::string& path) {
    auto it = facts_.find(path);
    if (it != facts_.end()) return it->second;
    if (!deps_.model_facts) return ModelFacts{};
    auto f = deps_.model_facts(path);
    if (f) facts_[path] = *f;
    return f;
  }

  milliseconds Timeout() const { return milliseconds(static_cast<int64_t>(ex_.timeout_s * 1000)); }

  // Sends one request (to the cell's worker unless another is named); a failure becomes the
  // cell's error.
  Result<json, RunError> Call(json req, worker::WorkerChannel* to = nullptr) {
    auto r = (to ? to : channel_.get())->Call(std::move(req), Timeout());
    if (!r.ok()) return FromCall(r.error());
    return std::move(*r);
  }

  RunStatus Keep(const store::CellRecord& rec, const std::string& test, int rep, bool warmup,
                 json raw) {
    store::SampleRecord s{0, rec.id, test, rep, warmup, std::move(raw)};
    if (auto id = deps_.store->AddSample(s); !id) return Failed(id.error().message);
    return {};
  }

  // The channel of an endpoint runtime: the controller's own (endpoint/channel.h).
  Result<std::unique_ptr<worker::WorkerChannel>> OpenEndpoint(const config::RuntimeSpec& r) {
    auto key = endpoint::ApiKeyFromEnvironment(*r.endpoint);
    if (!key) return key.error();
    endpoint::ChannelConfig cfg;
    cfg.runtime = r.name;
    cfg.spec = *r.endpoint;
    cfg.api_key = std::move(*key);
    cfg.client = deps_.http ? deps_.http : &http_;
    cfg.device = deps_.device;
    cfg.cancel = deps_.stop;
    cfg.tokenizer_program = ex_.source_tokenizer;  // counts what a server without usage sent
    return endpoint::OpenEndpoint(std::move(cfg));
  }

  RunStatus EnsureWorker(const plan::Cell& cell) {
    const std::string key = cell.runtime.endpoint ? "endpoint:" + cell.runtime.name
                                                  : cell.device.name + "|" + cell.runtime.worker;
    if (channel_ && channel_->Alive() && worker_path_ == key) return {};
    if (channel_) channel_->Shutdown(milliseconds(2000));
    channel_.reset();
    loaded_key_.clear();
    Result<std::unique_ptr<worker::WorkerChannel>> ch = RuntimeError("no worker");
    if (cell.runtime.endpoint) {
      ch = OpenEndpoint(cell.runtime);
    } else {
      auto program = WorkerFor(cell);
      if (!program) return Failed(program.error().message);
      ch = dev_->StartWorker({*program});
    }
    if (!ch) return Broken(ch.error().message);
    channel_ = std::move(*ch);
    worker_path_ = key;
    auto hello = Call(protocol::HelloRequest{}.ToJson());
    if (!hello) return hello.error();
    auto typed = protocol::HelloResponse::FromJson(*hello);
    if (!typed) return Broken(typed.error().message);
    if (typed->protocol != protocol::kProtocolVersion) {
      return Broken(fmt::format("worker {} speaks protocol version {}; this pipette speaks {}",
                                cell.runtime.worker, typed->protocol, protocol::kProtocolVersion));
    }
    hello_ = *typed;
    served_ops_ = runtime::SupportedOps::FromHello(*typed);
    return {};
  }

  // The op of `ops` the cell's worker does not serve (hello's `ops`; a worker that lists none
  // serves every op), or null.
  // Where several are missing, the one the runtime says why it lacks (an endpoint lacks
  // `score` for a reason that matters more than a missing tokenizer).
  const std::string* Unserved(const std::vector<std::string>& ops, const plan::Cell& cell) const {
    const std::string* first = nullptr;
    const runtime::Runtime* entry = runtime::Registry().Find(cell.runtime.name);
    for (const std::string& op : ops) {
      if (served_ops_.Has(op)) continue;
      if (entry && entry->unserved.count(op) && op != protocol::op::kTokenize) return &op;
      if (!first) first = &op;
    }
    return first;
  }

  RunStatus Measure(const plan::Cell& cell, store::CellRecord& rec) {
    // A cell that loads another model gets a fresh worker: the pages of the model before it
    // would otherwise still count in this cell's peak memory (they are freed only by the load).
    if (channel_ && cell.LoadKey(registry_) != loaded_key_) {
      channel_->Shutdown(milliseconds(2000));
      channel_.reset();
      loaded_key_.clear();
    }
    if (auto st = EnsureWorker(cell); !st) return st;
    rec.worker_pid = channel_->Pid();
    rec.runtime_version = hello_.runtime_version;
    rec.runtime_build = hello_.runtime_build;
    if (deps_.progress) deps_.progress->CellStarted(cell, int(cells_.size()), rec.worker_pid);
    // Record the worker now, so a crash mid-cell still leaves the pid and runtime in the store.
    if (auto st = deps_.store->UpdateCell(rec); !st) return Failed(st.error().message);

    // A tier's counters start here too (its memory peak reset): the cell's own.
    if (!cell.runtime.endpoint) {
      auto tier = dev_->TierReading(hello_.pid, true);
      if (!tier) return Failed("reading the tier's cgroups: " + tier.error().message);
      tier_start_ = *tier;
      tier_pid_ = hello_.pid;
    }

    // The cell's peak memory starts here, before any model load or context it needs (a running
    // server's memory is not Pipette's to read: its memory is n/a).
    const bool memory = served_ops_.Has(protocol::op::kMemory);
    Result<json, RunError> reset = json::object();
    if (memory) reset = Call(protocol::ResetPeakMemoryRequest{}.ToJson());
    if (!reset) return reset.error();

    const std::string load_key = cell.LoadKey(registry_);
    if (load_key != loaded_key_) {
      auto loaded = Phase(cell, "load model", [&]() -> RunStatus {
        const auto t0 = std::chrono::steady_clock::now();
        // The model as the cell's device sees it (this machine: its own path).
        auto staged = dev_->Stage(cell.model.path);
        if (!staged) return Failed(staged.error().message);
        const json req = LoadRequest(cell, registry_, *staged);
        auto resp = Call(req);
        if (!resp) return resp.error();
        auto typed = protocol::LoadModelResponse::FromJson(*resp);
        if (!typed) return Broken(typed.error().message);
        eta_.Done(estimate::DeviceKind("load", cell.device.IsLocal() ? "" : cell.device.name), 1,
                  SecondsSince(t0));
        json raw = RawFacts(*resp);
        raw["cold"] = false;  // the page cache is not dropped (needs root, disturbs the machine)
        raw["request"] = RequestFacts(req);
        if (auto st = Keep(rec, "load", 0, false, raw); !st) return st;
        model_runtime_info_ = (*resp)["model"];  // as the worker wrote it, for the store
        model_ = typed->model;
        load_applied_ = AppliedLoadParams(typed->applied, registry_, cell.runtime.name);
        loaded_key_ = load_key;
        load_cell_id_ = rec.id;
        return {};
      });
      if (!loaded) return loaded;
    }
    rec.load_cell_id = load_cell_id_;
    rec.model_info["runtime"] = model_runtime_info_;
    const json ctx_req = ContextRequest(cell, registry_);
    auto made = Call(ctx_req);
    if (!made) return made.error();
    const json& ctx = *made;
    auto typed_ctx = protocol::InitContextResponse::FromJson(ctx);
    if (!typed_ctx) return Broken(typed_ctx.error().message);
    json ctx_raw = RawFacts(ctx);
    ctx_raw["request"] = RequestFacts(ctx_req);
    ctx_raw["params_set"] = rec.params;  // what the experiment set; the rest is the runtime's
    if (auto st = Keep(rec, "context", 0, false, ctx_raw); !st) return st;
    // The runtime may clamp the batch to the context; tests use what it applied.
    applied_n_batch_ = typed_ctx->n_batch;
    // The stored parameters must be the ones that ran: a planned value the runtime changed fails
    // the cell; one the experiment left to the runtime is stored as the runtime applied it.
    if (auto planned = AppliedAsPlanned(cell, load_applied_, ctx, registry_); !planned) {
      return Failed(planned.error().message);
    }
    rec.params = AppliedParams(rec.params, load_applied_, ctx, registry_, cell.runtime.name);
    rec.worker_pid = channel_->Pid();  // a server an endpoint starts is up only now
    if (auto st = deps_.store->UpdateCell(rec); !st) return Failed(st.error().message);

    CellContext wctx(*this, cell, rec);
    for (auto& w : workloads_) {
      const std::vector<workload::Phase> phases = w->Phases(ex_);
      for (size_t i = 0; i < phases.size(); ++i) {
        if (const std::string* op = Unserved(phases[i].ops, cell)) {
          if (auto st = NotApplicable(cell, rec, phases[i].name, *op); !st) return st;
          continue;
        }
        if (auto st = Phase(cell, phases[i].name, [&] { return w->Run(wctx, i); }); !st) {
          return st;
        }
      }
    }

    if (!memory) return NotApplicable(cell, rec, "memory", protocol::op::kMemory);
    auto mem = Call(protocol::MemoryRequest{}.ToJson());
    if (!mem) return mem.error();
    json raw = RawFacts(*mem);
    raw["reset"] = RawFacts(*reset);
    if (auto st = Keep(rec, "memory", 0, false, raw); !st) return st;
    return {};
  }

  // A phase whose op the cell's runtime does not serve is not measured and does not fail the
  // cell: it is stored as an `na` sample with the reason, and the cell goes on.
  RunStatus NotApplicable(const plan::Cell& cell, const store::CellRecord& rec,
                          const std::string& phase, const std::string& op) {
    const runtime::Runtime* entry = runtime::Registry().Find(cell.runtime.name);
    const std::string reason =
        entry && entry->unserved.count(op)
            ? entry->unserved.at(op)
            : fmt::format("runtime '{}' does not serve op '{}'", cell.runtime.name, op);
    if (auto st =
            Keep(rec, "na", na_count_++, false, {{"phase", phase}, {"op", op}, {"reason", reason}});
        !st) {
      return st;
    }
    if (deps_.progress) {
      deps_.progress->Step(cell, int(cells_.size()), fmt::format("{}: n/a ({})", phase, reason),
                           eta_.FractionDone(), eta_.SecondsLeft());
    }
    return {};
  }

  // What a workload sees of the runner during one cell.
  class CellContext : public workload::Context {
   public:
    CellContext(Runner& r, const plan::Cell& cell, const store::CellRecord& rec)
        : r_(r), cell_(cell), rec_(rec) {}
    const config::Experiment& Experiment() const override { return r_.ex_; }
    const std::vector<plan::Cell>& Cells() const override { return r_.cells_; }
    const runtime::ParamRegistry& Params() const override { return r_.registry_; }
    const plan::Cell& Cell() const override { return cell_; }
    const store::CellRecord& Record() const override { return rec_; }
    const protocol::ModelInfo& Model() const override { return r_.model_; }
    const std::string& LoadKey() const override { return r_.loaded_key_; }
    std::optional<int64_t> NBatch() const override { return r_.applied_n_batch_; }
    Result<json> LoadRequest(const plan::Cell& cell) const override {
      auto staged = r_.deps_.device->Stage(cell.model.path);
      if (!staged) return staged.error();
      return run::LoadRequest(cell, r_.registry_, *staged);
    }
    json ContextRequest(const plan::Cell& cell) const override {
      return run::ContextRequest(cell, r_.registry_);
    }
    Result<json, RunError> Call(const json& request, worker::WorkerChannel* to) override {
      return r_.Call(request, to);
    }
    worker::WorkerChannel& Channel() override { return *r_.channel_; }
    bool Serves(std::string_view op) const override { return r_.served_ops_.Has(op); }
    Result<worker::WorkerChannel*, RunError> TokenizerReference() override {
      return r_.tokenizer_reference_.For(cell_, r_.ex_.source_tokenizer, *r_.deps_.device,
                                         r_.Timeout());
    }
    // This machine: the helpers (kld reference, chat renderer) run here whatever the cell's device.
    device::Device& Device() override { return *r_.deps_.device; }
    milliseconds Timeout() const override { return r_.Timeout(); }
    RunStatus Keep(const std::string& test, int rep, bool warmup, json raw) override {
      return r_.Keep(rec_, test, rep, warmup, std::move(raw));
    }
    bool Stopped() const override { return r_.Stopped(); }
    Result<json, RunError> Ready() override { return r_.Ready(); }
    std::optional<env::Sensors> EnergyMark() override { return r_.EnergyMark(); }
    Result<env::Sensors> ReadSensors(std::string* root) override {
      ReadyProbe* probe = r_.Probe();
      if (!probe) return RuntimeError("the device's sensors are not looked at in this run");
      if (root) *root = probe->SensorsRoot();
      return probe->ReadSensors();
    }
    json EnergySince(const std::optional<env::Sensors>& mark, double seconds) override {
      return r_.EnergySince(mark, seconds);
    }
    std::optional<std::vector<int>> WorkerCpus() const override {
      if (!r_.tier_start_.is_object()) return std::nullopt;
      auto it = r_.tier_start_.find("worker.cpus_allowed_list");
      if (it == r_.tier_start_.end() || !it->is_string()) return std::nullopt;
      return env::ParseCpuList(it->get<std::string>());
    }
    void Done(const std::string& kind, double units, double seconds) override {
      r_.eta_.Done(estimate::DeviceKind(kind, cell_.device.IsLocal() ? "" : cell_.device.name),
                   units, seconds);
    }
    void Step(const std::string& what) override {
      if (!r_.deps_.progress) return;
      r_.deps_.progress->Step(cell_, int(r_.cells_.size()), what, r_.eta_.FractionDone(),
                              r_.eta_.SecondsLeft());
    }

    workload::Visit CurrentVisit() const override { return r_.visit_; }

   private:
    Runner& r_;
    const plan::Cell& cell_;
    const store::CellRecord& rec_;
  };

  const config::Experiment& ex_;
  const std::vector<plan::Cell>& cells_;
  const runtime::ParamRegistry& registry_;
  RunnerDeps deps_;
  RunSummary summary_;
  estimate::Estimator eta_;
  std::unique_ptr<worker::WorkerChannel> channel_;
  std::string worker_path_;   // the worker program, or "endpoint:<runtime>"
  http::HttpLibClient http_;  // endpoints' client unless the deps give one
  protocol::HelloResponse hello_;
  std::string loaded_key_;
  int64_t load_cell_id_ = 0;
  json model_runtime_info_;
  protocol::ModelInfo model_;           // the same, typed: what workloads read
  json load_applied_ = json::object();  // the load-time parameters the loaded model ran with
  std::optional<int64_t> applied_n_batch_;
  std::map<std::string, ModelFacts> facts_;
  int64_t environment_id_ = 0;
  device::Device* dev_ = nullptr;             // the current cell's device
  bool on_this_machine_ = true;               // the current cell's device is this machine
  json tier_start_;                           // a tier's readings at the cell's start; null: none
  int64_t tier_pid_ = 0;                      // the worker they are of (its pid on the device)
  std::map<std::string, OpenDevice> opened_;  // other devices, by name, once opened
  std::map<std::string, std::string> down_;   // devices not answering, by name: why
  json others_ = json::array();               // other Pipette workers seen during the current cell
  runtime::SupportedOps served_ops_;          // hello's `ops` of the cell's worker
  int na_count_ = 0;                          // `na` samples of the current cell
  std::vector<std::unique_ptr<workload::Workload>> workloads_;  // registry.h, in order
  metrics::RowDerivers derivers_;           // workloads_, as the derivation of rows takes them
  TokenizerReference tokenizer_reference_;  // a converted model's source, to check its tokenizer
  // The readiness gate (run/readiness.h): each device's probe, the temperature it had at its
  // first cell (what `cooldown: temperature` waits for), and whether a cell ran there yet.
  std::map<device::Device*, std::unique_ptr<ReadyProbe>> probes_;
  std::map<device::Device*, std::optional<double>> start_temp_;
  std::set<device::Device*> cells_begun_;
  // Devices found without an energy source: why (energy per token is n/a there).
  std::map<device::Device*, std::string> no_energy_;
  std::string energy_read_error_;  // the current repetition's first reading failed: why
  std::string strict_refusal_;     // --strict: why the run stops after this cell
  std::string not_ready_;          // why the readiness gate failed the current cell, if it did
  workload::Visit visit_;          // --interleave: the round the run is in
  // --interleave: the cells measured at their first visit and not finished yet, by index.
  std::map<int, store::CellRecord> open_;
};

}  // namespace

Result<RunSummary> RunExperiment(const config::Experiment& ex, const std::vector<plan::Cell>& cells,
                                 const runtime::ParamRegistry& registry, int64_t environment_id,
                                 RunnerDeps deps) {
  Runner runner(ex, cells, registry, std::move(deps));
  return runner.Run(environment_id);
}

}  // namespace pipette::run
