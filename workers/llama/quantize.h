// The `quantize` request (docs/protocol.md): writes a quantized copy of a GGUF model file with
// llama_model_quantize. Needs no loaded model and leaves the session's model and context alone.
#pragma once

#include <nlohmann/json.hpp>

#include "llama_session.h"

namespace pipette::llama_worker {

Reply Quantize(const nlohmann::json& request);

}  // namespace pipette::llama_worker
