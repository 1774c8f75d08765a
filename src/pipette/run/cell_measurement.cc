#include "pipette/run/cell_measurement.h"

#include <fmt/format.h>

#include <chrono>

#include "pipette/env/cgroup_tier.h"
#include "pipette/protocol/model_ops.h"
#include "pipette/protocol/session_ops.h"
#include "pipette/run/runtime_params.h"
#include "pipette/util/seconds.h"

namespace pipette::run {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using workload::Failed;
using workload::RawFacts;
using workload::RunError;
using workload::RunStatus;

class CellMeasurement {
 public:
  CellMeasurement(MeasureParts& p, const plan::Cell& cell, store::CellRecord& rec,
                  workload::Visit visit)
      : p_(p), cell_(cell), rec_(rec), visit_(visit), first_(visit.index == 0) {}

  RunStatus Run() {
    WorkerSession& worker = p_.worker;
    device::Device& dev = *p_.devices.Current();
    // A cell that loads another model gets a fresh worker: the pages of the model before it
    // would otherwise still count in this cell's peak memory (they are freed only by the load).
    worker.ReplaceForLoad(cell_, p_.registry);
    if (auto st = worker.Ensure(cell_, dev); !st) return st;
    if (first_) {
      rec_.worker_pid = worker.Channel().Pid();
      rec_.runtime_version = worker.Hello().runtime_version;
      rec_.runtime_build = worker.Hello().runtime_build;
    }
    if (p_.progress) p_.progress->CellStarted(cell_, NCells(), worker.Channel().Pid());
    if (first_) {
      // Record the worker now, so a crash mid-cell still leaves the pid and runtime in the store.
      if (auto st = p_.store.UpdateCell(rec_); !st) return Failed(st.error().message);
    }
    // A tier's counters start here too (its memory peak reset at the first visit: the cell's
    // own); at a later visit, what tells an OOM kill during it (not stored).
    if (!cell_.runtime.endpoint) {
      if (auto st = p_.devices.StartTier(worker.Hello().pid, first_); !st) {
        return Failed(st.error().message);
      }
    }
    // The cell's peak memory starts here, before any model load or context it needs (a running
    // server's memory is not Pipette's to read: its memory is n/a).
    const bool memory = first_ && worker.Serves(protocol::op::kMemory);
    Result<json, RunError> reset = json::object();
    if (memory) reset = worker.Call(protocol::ResetPeakMemoryRequest{}.ToJson());
    if (!reset) return reset.error();

    if (!worker.HasLoaded(cell_, p_.registry)) {
      if (auto st = Phase("load model", [&] { return LoadModel(dev); }); !st) return st;
    }
    if (auto st = InitContext(); !st) return st;
    if (auto st = RunWorkloads(); !st) return st;
    if (!first_) return {};

    if (!memory) return NotApplicable("memory", protocol::op::kMemory);
    auto mem = worker.Call(protocol::MemoryRequest{}.ToJson());
    if (!mem) return mem.error();
    json raw = RawFacts(*mem);
    raw["reset"] = RawFacts(*reset);
    return Keep("memory", 0, false, raw);
  }

 private:
  int NCells() const { return static_cast<int>(p_.cells.size()); }
  RunStatus Keep(const std::string& test, int rep, bool warmup, json raw) {
    return KeepSample(p_.store, rec_, test, rep, warmup, std::move(raw));
  }
  void Done(const std::string& kind, double units, double seconds) {
    p_.eta.Done(estimate::DeviceKind(kind, cell_.device.IsLocal() ? "" : cell_.device.name), units,
                seconds);
  }

  // One phase of the cell, announced to the progress sink at its start and its end.
  template <class F>
  RunStatus Phase(const std::string& name, F&& body) {
    if (p_.progress) p_.progress->PhaseStarted(cell_, NCells(), name);
    const auto t0 = std::chrono::steady_clock::now();
    RunStatus e = body();
    if (p_.after_phase) p_.after_phase();
    if (e && p_.progress) {
      p_.progress->PhaseFinished(cell_, NCells(), name, SecondsSince(t0), p_.eta.FractionDone(),
                                 p_.eta.SecondsLeft());
    }
    return e;
  }

  // The model loaded; at the first visit its `load` sample stored (a later visit's load is not:
  // the cell's load sample is its first visit's).
  RunStatus LoadModel(device::Device& dev) {
    const auto t0 = std::chrono::steady_clock::now();
    auto loaded = p_.worker.LoadModel(cell_, p_.registry, dev, rec_.id);
    if (!loaded) return loaded.error();
    Done("load", 1, SecondsSince(t0));
    if (!first_) return {};
    json raw = RawFacts(loaded->reply);
    raw["cold"] = false;  // the page cache is not dropped (needs root, disturbs the machine)
    raw["request"] = RequestFacts(loaded->request);
    return Keep("load", 0, false, raw);
  }

  // A fresh context. The stored parameters must be the ones that ran: a planned value the
  // runtime changed fails the cell; one the experiment left to the runtime is stored as the
  // runtime applied it (at the first visit, with the `context` sample).
  RunStatus InitContext() {
    WorkerSession& worker = p_.worker;
    if (first_) {
      rec_.load_cell_id = worker.LoadCellId();
      rec_.model_info["runtime"] = worker.ModelRuntimeInfo();
    }
    const json request = ContextRequest(cell_, p_.registry);
    auto made = worker.InitContext(request);
    if (!made) return made.error();
    if (first_) {
      json raw = RawFacts(*made);
      raw["request"] = RequestFacts(request);
      raw["params_set"] = rec_.params;  // what the experiment set; the rest is the runtime's
      if (auto st = Keep("context", 0, false, raw); !st) return st;
    }
    if (auto planned = AppliedAsPlanned(cell_, worker.LoadApplied(), *made, p_.registry);
        !planned) {
      return Failed(planned.error().message);
    }
    if (!first_) return {};
    rec_.params =
        AppliedParams(rec_.params, worker.LoadApplied(), *made, p_.registry, cell_.runtime.name);
    rec_.worker_pid = worker.Channel().Pid();  // a server an endpoint starts is up only now
    if (auto st = p_.store.UpdateCell(rec_); !st) return Failed(st.error().message);
    return {};
  }

  // Every workload's phases at the first visit (a phase whose op the runtime does not serve
  // stored as n/a); at a later one, those of the workloads that interleave (already n/a).
  RunStatus RunWorkloads();

  // A phase whose op the cell's runtime does not serve is not measured and does not fail the
  // cell: it is stored as an `na` sample with the reason, and the cell goes on.
  RunStatus NotApplicable(const std::string& phase, const std::string& op) {
    const std::string reason = p_.worker.UnservedReason(cell_, op);
    if (auto st =
            Keep("na", na_count_++, false, {{"phase", phase}, {"op", op}, {"reason", reason}});
        !st) {
      return st;
    }
    if (p_.progress) {
      p_.progress->Step(cell_, NCells(), fmt::format("{}: n/a ({})", phase, reason),
                        p_.eta.FractionDone(), p_.eta.SecondsLeft());
    }
    return {};
  }

  MeasureParts& p_;
  const plan::Cell& cell_;
  store::CellRecord& rec_;
  const workload::Visit visit_;
  const bool first_;
  int na_count_ = 0;  // `na` samples of the cell
};

// What a workload sees of the run during one visit of a cell.
class CellContext : public workload::Context {
 public:
  CellContext(MeasureParts& p, const plan::Cell& cell, const store::CellRecord& rec,
              workload::Visit visit)
      : p_(p), cell_(cell), rec_(rec), visit_(visit) {}
  const config::Experiment& Experiment() const override { return p_.ex; }
  const std::vector<plan::Cell>& Cells() const override { return p_.cells; }
  const runtime::ParamRegistry& Params() const override { return p_.registry; }
  const plan::Cell& Cell() const override { return cell_; }
  const store::CellRecord& Record() const override { return rec_; }
  const protocol::ModelInfo& Model() const override { return p_.worker.Model(); }
  const std::string& LoadKey() const override { return p_.worker.LoadedKey(); }
  std::optional<int64_t> NBatch() const override { return p_.worker.NBatch(); }
  Result<json> LoadRequest(const plan::Cell& cell) const override {
    auto staged = p_.local.Stage(cell.model.path);
    if (!staged) return staged.error();
    return run::LoadRequest(cell, p_.registry, *staged);
  }
  json ContextRequest(const plan::Cell& cell) const override {
    return run::ContextRequest(cell, p_.registry);
  }
  Result<json, RunError> Call(const json& request, worker::WorkerChannel* to) override {
    return p_.worker.Call(request, to);
  }
  worker::WorkerChannel& Channel() override { return p_.worker.Channel(); }
  bool Serves(std::string_view op) const override { return p_.worker.Serves(op); }
  Result<worker::WorkerChannel*, RunError> TokenizerReference() override {
    return p_.tokenizer_reference.For(cell_, p_.ex.source_tokenizer, p_.local, Timeout());
  }
  // This machine: the helpers (kld reference, chat renderer) run here whatever the cell's device.
  device::Device& Device() override { return p_.local; }
  milliseconds Timeout() const override { return p_.worker.Timeout(); }
  RunStatus Keep(const std::string& test, int rep, bool warmup, json raw) override {
    return KeepSample(p_.store, rec_, test, rep, warmup, std::move(raw));
  }
  bool Stopped() const override { return p_.stop && p_.stop->load(); }
  Result<json, RunError> Ready() override { return p_.devices.Ready(); }
  std::optional<env::Sensors> EnergyMark() override { return p_.devices.EnergyMark(); }
  Result<env::Sensors> ReadSensors(std::string* root) override {
    ReadyProbe* probe = p_.devices.Probe();
    if (!probe) return RuntimeError("the device's sensors are not looked at in this run");
    if (root) *root = probe->SensorsRoot();
    return probe->ReadSensors();
  }
  json EnergySince(const std::optional<env::Sensors>& mark, double seconds) override {
    return p_.devices.EnergySince(mark, seconds);
  }
  std::optional<std::vector<int>> WorkerCpus() const override {
    const json& start = p_.devices.TierStart();
    if (!start.is_object()) return std::nullopt;
    auto it = start.find("worker.cpus_allowed_list");
    if (it == start.end() || !it->is_string()) return std::nullopt;
    return env::ParseCpuList(it->get<std::string>());
  }
  void Done(const std::string& kind, double units, double seconds) override {
    p_.eta.Done(estimate::DeviceKind(kind, cell_.device.IsLocal() ? "" : cell_.device.name), units,
                seconds);
  }
  void Step(const std::string& what) override {
    if (!p_.progress) return;
    p_.progress->Step(cell_, static_cast<int>(p_.cells.size()), what, p_.eta.FractionDone(),
                      p_.eta.SecondsLeft());
  }
  workload::Visit CurrentVisit() const override { return visit_; }

 private:
  MeasureParts& p_;
  const plan::Cell& cell_;
  const store::CellRecord& rec_;
  const workload::Visit visit_;
};

RunStatus CellMeasurement::RunWorkloads() {
  CellContext ctx(p_, cell_, rec_, visit_);
  for (auto& w : p_.workloads) {
    if (!first_ && !w->Interleaves()) continue;
    const std::vector<workload::Phase> phases = w->Phases(p_.ex);
    for (size_t i = 0; i < phases.size(); ++i) {
      if (const std::string* op = p_.worker.Unserved(phases[i].ops, cell_)) {
        if (!first_) continue;  // stored as n/a at the first visit
        if (auto st = NotApplicable(phases[i].name, *op); !st) return st;
        continue;
      }
      if (auto st = Phase(phases[i].name, [&] { return w->Run(ctx, i); }); !st) return st;
    }
  }
  return {};
}

}  // namespace

RunStatus KeepSample(store::Store& store, const store::CellRecord& rec, const std::string& test,
                     int rep, bool warmup, json raw) {
  store::SampleRecord s{0, rec.id, test, rep, warmup, std::move(raw)};
  if (auto id = store.AddSample(s); !id) return Failed(id.error().message);
  return {};
}

RunStatus Measure(MeasureParts& parts, const plan::Cell& cell, store::CellRecord& rec,
                  workload::Visit visit) {
  return CellMeasurement(parts, cell, rec, visit).Run();
}

}  // namespace pipette::run
