// One runtime, everything the controller knows about it: its name, how it is reached, the model
// formats it loads, its parameters and its rule for resolving a cell. The registry
// (runtime/registry.h) holds one entry per runtime; docs/internals.md "Runtimes: the
// registry" says how to add one.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "pipette/runtime/params.h"

namespace pipette::runtime {

// Reached through a worker program Pipette builds beside itself (docs/protocol.md): the
// controller starts it on the device and speaks the protocol over its standard streams.
struct WorkerProgram {
  std::string program;  // file name in the workers folder ("pipette-worker-llama")
};

// Reached at an HTTP endpoint the controller talks to itself (endpoint/channel.h): a server
// already running (the experiment's base_url:) or one Pipette starts (server:).
struct Endpoint {
  // The server `server: bundled` starts, relative to the workers folder: the pinned llama-server
  // built beside the llama.cpp worker.
  std::string bundled_server;
};

using Reach = std::variant<WorkerProgram, Endpoint>;

// A cell's parameters as the plan holds them: name -> canonical text, in registry order.
using CellParams = std::vector<std::pair<std::string, std::string>>;

// The value of `name` in `params`, or nullptr when the cell does not hold it.
const std::string* FindParam(const CellParams& params, std::string_view name);
std::string* FindParam(CellParams& params, std::string_view name);
// The value of `name` as an integer, or nullopt when the cell does not hold it or it is not one.
std::optional<int64_t> IntParam(const CellParams& params, std::string_view name);

struct Runtime {
  std::string name{};  // as an experiment names it ("llama.cpp")
  Reach reach{};
  // The model formats it loads ("gguf"); a model of another format is refused at resolve.
  std::vector<std::string> model_formats{};
  // Its parameters: what an experiment may set and sweep for it (runtime/params.h).
  ParamRegistry params{{}};
  // Makes a cell's values the ones that run, once n_ctx holds what the tests need (after the
  // plan's checks): llama.cpp pads the context and clamps the batches to it. Empty: none.
  std::function<void(CellParams&)> resolve_cell{};
  // Its worker serves `quantize` and `imatrix`: it makes the variants of `quantize:`.
  bool makes_variants = false;
  // Its worker serves `render_chat`: the chat prompts of a runtime without a template engine of
  // its own (its worker lacks `render_chat`) are rendered by this one's, so every runtime is
  // sent the same prompt bytes.
  bool renders_chat_templates = false;
  // Its worker is one self-contained native program that scripts/build-worker.sh cross-builds
  // for other architectures: it runs on remote devices (ssh, adb). The others run only on this
  // machine (a Python worker needs its packages there; an endpoint is reached from here).
  bool runs_on_devices = false;
  // Why its worker (or endpoint) does not serve an op, where there is more to say than that it
  // does not: the reason an n/a figure is reported with.
  std::map<std::string, std::string> unserved{};

  bool Accepts(const std::string& format) const;
  // The worker program's file name, or nullptr when it is reached otherwise.
  const WorkerProgram* Worker() const { return std::get_if<WorkerProgram>(&reach); }
  // The endpoint it is reached at, or nullptr when it runs a worker program.
  const Endpoint* EndpointReach() const { return std::get_if<Endpoint>(&reach); }
  bool IsEndpoint() const { return EndpointReach() != nullptr; }
};

}  // namespace pipette::runtime
