// A cell's parameters as worker requests (only what the experiment sets is sent) and what ran,
// from the worker's replies (what the runtime applied for the rest).
#pragma once

#include <nlohmann/json.hpp>

#include "pipette/plan/plan.h"

namespace pipette::run {

// The load_model request: path, and use_mmap / n_gpu_layers only where the experiment sets them.
nlohmann::json LoadRequest(const plan::Cell& cell);

// The init_context request: n_ctx always (Pipette resolves it), every other context parameter
// only where the experiment sets it (threads as n_threads and n_threads_batch).
nlohmann::json ContextRequest(const plan::Cell& cell);

// What a stored sample records of a request: its fields without "op".
nlohmann::json RequestFacts(nlohmann::json request);

// The load-time parameters a load_model reply says were applied ({use_mmap, n_gpu_layers}).
nlohmann::json AppliedLoadParams(const nlohmann::json& load_reply);

// What ran: `planned` (the cell's parameters as JSON, what the experiment set) completed with
// what the runtime applied for those it left unset, from `load_applied` and the init_context
// reply. flash_attn is the runtime's resolution ("on"/"off"); where it did not say, what was
// asked ("auto" when unset: unresolved).
nlohmann::json AppliedParams(const nlohmann::json& planned, const nlohmann::json& load_applied,
                             const nlohmann::json& context_reply);

}  // namespace pipette::run
