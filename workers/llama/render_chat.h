// The `render_chat` op (docs/protocol.md): a model's chat template given as text, rendered with
// llama.cpp's engine exactly as `chat` renders a loaded model's. Needs no model: the controller
// asks this worker for the prompts of a runtime without a template engine of its own.
#pragma once

#include <nlohmann/json.hpp>

#include "common/reply.h"

namespace pipette::llama_worker {

worker_common::Reply RenderChat(const nlohmann::json& request);

}  // namespace pipette::llama_worker
