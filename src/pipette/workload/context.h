// What a workload gets from the runner for one cell: the cell's worker (requests go through
// Call), the store (samples go through Keep), progress and time-left bookkeeping, and the facts
// of the loaded model and its context. Implemented by the runner (src/pipette/run/runner.cc) and
// by tests.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/config/experiment.h"
#include "pipette/device/device.h"
#include "pipette/env/sensors.h"
#include "pipette/plan/plan.h"
#include "pipette/protocol/model_ops.h"
#include "pipette/runtime/params.h"
#include "pipette/store/store.h"
#include "pipette/util/result.h"
#include "pipette/util/seconds.h"
#include "pipette/worker/channel.h"

namespace pipette::workload {

// Why a workload (so its cell) failed: the message for a person, and whether the cell's worker
// is left in an unknown state (it then serves no further request).
struct RunError : Error {
  bool worker_broken = false;
};
using RunStatus = Result<void, RunError>;

inline RunError Failed(std::string message) {
  RunError e;
  e.message = std::move(message);
  return e;
}
inline RunError Broken(std::string message) {
  RunError e = Failed(std::move(message));
  e.worker_broken = true;
  return e;
}
// A failed call: its message and context (the op), broken when the call broke the worker.
inline RunError FromCall(const worker::CallError& c) {
  RunError e = Failed(c.message);
  e.context = c.context;
  e.worker_broken = c.broken;
  return e;
}

// `run --interleave` visits every cell once per measured repetition, in rounds (A B A B ...):
// which visit of its cell this is (0-based) and how many there are. Without it one visit runs
// every repetition: {0, 1}.
struct Visit {
  int index = 0;
  int count = 1;
};

class Context {
 public:
  virtual ~Context() = default;
  virtual Visit CurrentVisit() const { return {}; }
  virtual const config::Experiment& Experiment() const = 0;
  virtual const std::vector<plan::Cell>& Cells() const = 0;  // the run's plan
  virtual const runtime::ParamRegistry& Params() const = 0;
  virtual const plan::Cell& Cell() const = 0;
  virtual const store::CellRecord& Record() const = 0;
  // The loaded model as its runtime reported it (load_model's `model`), the key of that load
  // (plan::Cell::LoadKey) and the batch size the runtime applied to the cell's context (none
  // when its runtime has no such setting: requests then leave the batch to the context).
  virtual const protocol::ModelInfo& Model() const = 0;
  virtual const std::string& LoadKey() const = 0;
  virtual std::optional<int64_t> NBatch() const = 0;
  // The load_model and init_context requests of `cell`'s parameters, as the runner sends them:
  // for a worker a workload starts of its own (the kld reference). The load request names the
  // model as the device has staged it; staging can fail.
  virtual Result<nlohmann::json> LoadRequest(const plan::Cell& cell) const = 0;
  virtual nlohmann::json ContextRequest(const plan::Cell& cell) const = 0;

  // One request to the cell's worker, or to `to`; the whole response when it says ok.
  virtual Result<nlohmann::json, RunError> Call(const nlohmann::json& request,
                                                worker::WorkerChannel* to = nullptr) = 0;
  virtual worker::WorkerChannel& Channel() = 0;
  // Whether the cell's worker serves `op` (its hello's `ops`).
  virtual bool Serves(std::string_view op) const = 0;
  // For a converted model (config::ModelSpec::tokenizer_source), a worker with the file it was
  // converted from loaded, whose tokenizer the cell's must agree with (started on first use, kept
  // for the run); nullptr for any other model.
  virtual Result<worker::WorkerChannel*, RunError> TokenizerReference() = 0;
  // Where the cell runs: a workload starts a worker of its own (the kld reference) through it.
  virtual device::Device& Device() = 0;
  virtual std::chrono::milliseconds Timeout() const = 0;
  // Stores one raw sample of the cell.
  virtual RunStatus Keep(const std::string& test, int rep, bool warmup, nlohmann::json raw) = 0;
  // Ctrl-C: stop after the current request.
  virtual bool Stopped() const = 0;
  // The readiness gate before a measured repetition (the experiment's `ready:`,
  // run/readiness.h): what it found, stored with the repetition as `ready`; null when the
  // experiment does not gate. A device not ready by the deadline fails the cell with the reason.
  virtual Result<nlohmann::json, RunError> Ready() = 0;
  // Energy of a measured repetition (docs/metrics.md "energy per token"): a reading of the
  // device's sensors before it (nullopt where the device has no energy source or no probe), and
  // after it what the stretch of `seconds` cost (env::EnergyFacts, with `sensors_root` when read
  // from a fake tree): null where the device is not looked at, {"na": why} where it cannot tell.
  virtual std::optional<env::Sensors> EnergyMark() = 0;
  virtual nlohmann::json EnergySince(const std::optional<env::Sensors>& mark, double seconds) = 0;
  // The device's sensors now (frequencies, temperatures, energy counters: sustained<T>); an error
  // where the device is not looked at or the reading failed. `root`: set to the fake tree's
  // folder when the readings come from one.
  virtual Result<env::Sensors> ReadSensors(std::string* root) {
    (void)root;
    return RuntimeError("this run reads no sensors");
  }
  // The CPUs the cell's worker may run on, where the run knows them (a tier's cpuset, from its
  // worker's affinity at the cell's start); nullopt: every CPU of the device.
  virtual std::optional<std::vector<int>> WorkerCpus() const { return std::nullopt; }
  // Time-left bookkeeping (`kind` as planned by Workload::PlanWork) and a progress line.
  virtual void Done(const std::string& kind, double units, double seconds) = 0;
  virtual void Step(const std::string& what) = 0;
};

// The raw facts of a response: everything but the envelope.
nlohmann::json RawFacts(nlohmann::json response);

// `tokenize` through the context's worker (or `to`). Through the cell's worker, a converted
// model's tokens are checked against its source's (Context::TokenizerReference): a
// disagreement fails the cell naming the first differing position.
Result<std::vector<int64_t>, RunError> Tokenize(Context& ctx, const std::string& text,
                                                bool add_special = true,
                                                worker::WorkerChannel* to = nullptr,
                                                bool parse_special = false);

}  // namespace pipette::workload
