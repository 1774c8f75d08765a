// The `quantize` request (docs/protocol.md): writes a quantized copy of a GGUF model file with
// llama_model_quantize. Needs no loaded model and leaves the session's model and context alone.
#pragma once

#include <nlohmann/json.hpp>

#include "common/reply.h"

namespace pipette::llama_worker {

worker_common::Reply Quantize(const nlohmann::json& request);

}  // namespace pipette::llama_worker
