// The cell's worker as the runner holds it: started on the cell's device (or an endpoint's
// channel opened), greeted, its model loaded and its context made; replaced when a cell loads
// another model (the pages of the model before would count in the cell's peak memory) or after
// it broke; what it does not serve, and why. One job: the worker side of a cell. The device side
// is run/device_session.h.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/config/experiment.h"
#include "pipette/device/device.h"
#include "pipette/http/client.h"
#include "pipette/plan/plan.h"
#include "pipette/protocol/model_ops.h"
#include "pipette/protocol/session_ops.h"
#include "pipette/runtime/ops.h"
#include "pipette/runtime/params.h"
#include "pipette/runtime/registry.h"
#include "pipette/worker/channel.h"
#include "pipette/workload/context.h"

namespace pipette::run {

// What the worker side needs from whoever runs the experiment (run::RunnerDeps's fields).
struct WorkerSessionDeps {
  device::Device* local = nullptr;  // this machine: where an endpoint's server is started
  // The runtimes the cells name: what each says of the ops it does not serve. nullptr: none
  // says (a missing op gets the generic reason).
  const runtime::RuntimeRegistry* runtimes = nullptr;
  // The worker program of `runtime` for `device`; unset: the runtime's own.
  std::function<Result<std::string>(const config::RuntimeSpec& runtime, device::Device& device)>
      worker_for;
  http::HttpClient* http = nullptr;  // endpoints' client; nullptr: the real one
  const std::atomic<bool>* stop = nullptr;
  std::string tokenizer_program;  // counts what an endpoint without usage sent
  std::chrono::milliseconds timeout{0};
};

// A model loaded by LoadModel: the request and reply, for the cell's `load` sample.
struct Loaded {
  nlohmann::json request;
  nlohmann::json reply;
};

class WorkerSession {
 public:
  explicit WorkerSession(WorkerSessionDeps deps) : deps_(std::move(deps)) {}
  ~WorkerSession() { Shutdown(std::chrono::milliseconds(2000)); }

  // A fresh worker for a cell that loads another model than the one loaded.
  void ReplaceForLoad(const plan::Cell& cell, const runtime::ParamRegistry& registry);
  // A worker of `cell`'s runtime on `device`, started and greeted unless the one held is it.
  workload::RunStatus Ensure(const plan::Cell& cell, device::Device& device);
  // Stops the worker held (its model forgotten); `grace` to exit before it is killed.
  void Shutdown(std::chrono::milliseconds grace);
  bool Held() const { return bool(channel_); }

  // Whether `cell`'s model (plan::Cell::LoadKey) is the one loaded.
  bool HasLoaded(const plan::Cell& cell, const runtime::ParamRegistry& registry) const;
  // Loads `cell`'s model, as `device` has staged it, for the cell `cell_id` (whose `load`
  // sample it is).
  Result<Loaded, workload::RunError> LoadModel(const plan::Cell& cell,
                                               const runtime::ParamRegistry& registry,
                                               device::Device& device, int64_t cell_id);
  // A fresh context (`request`: init_context of the cell's parameters): the reply, its applied
  // batch kept (NBatch). Whether the planned parameters applied is the caller's to check, after
  // it stored the reply.
  Result<nlohmann::json, workload::RunError> InitContext(const nlohmann::json& request);

  // One request to the worker, or to `to`; a failure is the cell's error.
  Result<nlohmann::json, workload::RunError> Call(nlohmann::json request,
                                                  worker::WorkerChannel* to = nullptr);

  // The op of `ops` the worker does not serve (hello's `ops`; a worker that lists none serves
  // every op), or null. Where several are missing, the one the runtime says why it lacks (an
  // endpoint lacks `score` for a reason that matters more than a missing tokenizer).
  const std::string* Unserved(const std::vector<std::string>& ops, const plan::Cell& cell) const;
  // Why `cell`'s runtime does not serve `op`: its own word, else a generic reason.
  std::string UnservedReason(const plan::Cell& cell, const std::string& op) const;
  bool Serves(std::string_view op) const { return served_ops_.Has(op); }

  worker::WorkerChannel& Channel() { return *channel_; }
  const protocol::HelloResponse& Hello() const { return hello_; }
  const std::string& LoadedKey() const { return loaded_key_; }
  int64_t LoadCellId() const { return load_cell_id_; }
  const nlohmann::json& ModelRuntimeInfo() const { return model_runtime_info_; }
  const protocol::ModelInfo& Model() const { return model_; }
  const nlohmann::json& LoadApplied() const { return load_applied_; }
  std::optional<int64_t> NBatch() const { return applied_n_batch_; }
  std::chrono::milliseconds Timeout() const { return deps_.timeout; }

 private:
  Result<std::unique_ptr<worker::WorkerChannel>> OpenEndpoint(const config::RuntimeSpec& r);
  const runtime::Runtime* Entry(const plan::Cell& cell) const;

  WorkerSessionDeps deps_;
  std::unique_ptr<worker::WorkerChannel> channel_;
  std::string worker_path_;   // the worker program, or "endpoint:<runtime>"
  http::HttpLibClient http_;  // endpoints' client unless the deps give one
  protocol::HelloResponse hello_;
  runtime::SupportedOps served_ops_;  // hello's `ops`
  std::string loaded_key_;
  int64_t load_cell_id_ = 0;
  nlohmann::json model_runtime_info_;  // load_model's `model`, as the worker wrote it
  protocol::ModelInfo model_;          // the same, typed: what workloads read
  nlohmann::json load_applied_ = nlohmann::json::object();  // the load-time parameters applied
  std::optional<int64_t> applied_n_batch_;
};

}  // namespace pipette::run
