#include "pipette/run/worker_session.h"

#include <fmt/format.h>

#include "pipette/endpoint/channel.h"
#include "pipette/protocol/version.h"
#include "pipette/run/runtime_params.h"

namespace pipette::run {

using nlohmann::json;
using std::chrono::milliseconds;
using workload::Broken;
using workload::Failed;
using workload::FromCall;
using workload::RunError;
using workload::RunStatus;

void WorkerSession::ReplaceForLoad(const plan::Cell& cell, const runtime::ParamRegistry& registry) {
  if (channel_ && !HasLoaded(cell, registry)) Shutdown(milliseconds(2000));
}

void WorkerSession::Shutdown(milliseconds grace) {
  if (channel_) channel_->Shutdown(grace);
  channel_.reset();
  loaded_key_.clear();
}

bool WorkerSession::HasLoaded(const plan::Cell& cell,
                              const runtime::ParamRegistry& registry) const {
  return !loaded_key_.empty() && cell.LoadKey(registry) == loaded_key_;
}

Result<std::unique_ptr<worker::WorkerChannel>> WorkerSession::OpenEndpoint(
    const config::RuntimeSpec& r) {
  auto key = endpoint::ApiKeyFromEnvironment(*r.endpoint);
  if (!key) return key.error();
  endpoint::ChannelConfig cfg;
  cfg.runtime = r.name;
  cfg.spec = *r.endpoint;
  cfg.api_key = std::move(*key);
  cfg.client = deps_.http ? deps_.http : &http_;
  cfg.device = deps_.local;
  cfg.cancel = deps_.stop;
  cfg.tokenizer_program = deps_.tokenizer_program;  // counts what a server without usage sent
  return endpoint::OpenEndpoint(std::move(cfg));
}

RunStatus WorkerSession::Ensure(const plan::Cell& cell, device::Device& device) {
  const std::string key = cell.runtime.endpoint ? "endpoint:" + cell.runtime.name
                                                : cell.device.name + "|" + cell.runtime.worker;
  if (channel_ && channel_->Alive() && worker_path_ == key) return {};
  Shutdown(milliseconds(2000));
  Result<std::unique_ptr<worker::WorkerChannel>> ch = RuntimeError("no worker");
  if (cell.runtime.endpoint) {
    ch = OpenEndpoint(cell.runtime);
  } else {
    // A tier of this machine runs this machine's own workers.
    Result<std::string> program = cell.runtime.worker;
    if (deps_.worker_for && !(cell.device.kind == "local" && cell.device.Tiered())) {
      program = deps_.worker_for(cell.runtime, device);
    }
    if (!program) return Failed(program.error().message);
    ch = device.StartWorker({*program});
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

Result<Loaded, RunError> WorkerSession::LoadModel(const plan::Cell& cell,
                                                  const runtime::ParamRegistry& registry,
                                                  device::Device& device, int64_t cell_id) {
  // The model as the cell's device sees it (this machine: its own path).
  auto staged = device.Stage(cell.model.path);
  if (!staged) return Failed(staged.error().message);
  Loaded loaded{LoadRequest(cell, registry, *staged), json()};
  auto resp = Call(loaded.request);
  if (!resp) return resp.error();
  auto typed = protocol::LoadModelResponse::FromJson(*resp);
  if (!typed) return Broken(typed.error().message);
  model_runtime_info_ = (*resp)["model"];  // as the worker wrote it, for the store
  model_ = typed->model;
  load_applied_ = AppliedLoadParams(typed->applied, registry, cell.runtime.name);
  loaded_key_ = cell.LoadKey(registry);
  load_cell_id_ = cell_id;
  loaded.reply = std::move(*resp);
  return loaded;
}

Result<json, RunError> WorkerSession::InitContext(const json& request) {
  auto made = Call(request);
  if (!made) return made.error();
  auto typed = protocol::InitContextResponse::FromJson(*made);
  if (!typed) return Broken(typed.error().message);
  // The runtime may clamp the batch to the context; tests use what it applied.
  applied_n_batch_ = typed->n_batch;
  return std::move(*made);
}

Result<json, RunError> WorkerSession::Call(json request, worker::WorkerChannel* to) {
  auto r = (to ? to : channel_.get())->Call(std::move(request), deps_.timeout);
  if (!r.ok()) return FromCall(r.error());
  return std::move(*r);
}

const runtime::Runtime* WorkerSession::Entry(const plan::Cell& cell) const {
  return deps_.runtimes ? deps_.runtimes->Find(cell.runtime.name) : nullptr;
}

const std::string* WorkerSession::Unserved(const std::vector<std::string>& ops,
                                           const plan::Cell& cell) const {
  const std::string* first = nullptr;
  const runtime::Runtime* entry = Entry(cell);
  for (const std::string& op : ops) {
    if (served_ops_.Has(op)) continue;
    if (entry && entry->unserved.count(op) && op != protocol::op::kTokenize) return &op;
    if (!first) first = &op;
  }
  return first;
}

std::string WorkerSession::UnservedReason(const plan::Cell& cell, const std::string& op) const {
  const runtime::Runtime* entry = Entry(cell);
  return entry && entry->unserved.count(op)
             ? entry->unserved.at(op)
             : fmt::format("runtime '{}' does not serve op '{}'", cell.runtime.name, op);
}

}  // namespace pipette::run
