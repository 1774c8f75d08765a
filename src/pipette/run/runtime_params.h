// A cell's parameters as worker requests (only what the experiment sets is sent) and what ran,
// from the worker's replies (what the runtime applied for the rest). Built from the parameter
// registry (runtime/params.h): each parameter names its stage, its request fields and the reply
// field that says what was applied, so none is named here. A cell holds only its runtime's
// parameters (plan/plan.h), so its worker is sent only those.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "pipette/plan/plan.h"
#include "pipette/runtime/params.h"
#include "pipette/util/result.h"

namespace pipette::run {

// The load_model request (protocol::LoadModelRequest): `path` (the model as the device staged
// it, Device::Stage), and each load-stage parameter the cell sets. Without `path`: the model's
// own path.
nlohmann::json LoadRequest(const plan::Cell& cell, const runtime::ParamRegistry& registry,
                           const std::string& path);
nlohmann::json LoadRequest(const plan::Cell& cell, const runtime::ParamRegistry& registry);

// The init_context request (protocol::InitContextRequest): each context-stage parameter the
// cell sets (n_ctx always: Pipette resolves it), as its request fields (threads as n_threads and
// n_threads_batch).
nlohmann::json ContextRequest(const plan::Cell& cell, const runtime::ParamRegistry& registry);

// What a stored sample records of a request: its fields without "op".
nlohmann::json RequestFacts(nlohmann::json request);

// The applied fields of `runtime`'s load-stage parameters in a load_model reply ({use_mmap,
// n_gpu_layers}), kept for the cells that share the load.
nlohmann::json AppliedLoadParams(const nlohmann::json& load_reply,
                                 const runtime::ParamRegistry& registry, std::string_view runtime);

// What ran: `planned` (the cell's parameters as JSON, what the experiment set) completed with
// what `runtime` applied for those of its parameters it left unset, from `load_applied` and the
// init_context reply. A parameter the runtime resolves (flash_attn: "on"/"off") is what it
// reports even when set; where it did not say, what was asked, else its `unreported` value
// ("auto": unresolved). Another runtime's parameter is never added.
nlohmann::json AppliedParams(const nlohmann::json& planned, const nlohmann::json& load_applied,
                             const nlohmann::json& context_reply,
                             const runtime::ParamRegistry& registry, std::string_view runtime);

// Every parameter the runtime must apply as planned (ParamDef::must_apply_as_planned) was: else
// an error naming the first whose applied field in the init_context or load_model reply differs
// from the cell's value, "the runtime applied n_batch 256 instead of the planned 512".
Status AppliedAsPlanned(const plan::Cell& cell, const nlohmann::json& load_reply,
                        const nlohmann::json& context_reply,
                        const runtime::ParamRegistry& registry);

}  // namespace pipette::run
