// What a GGUF model file says of itself, as a worker's load_model reply gives it
// (protocol::ModelInfo): an endpoint's server loads the file itself, so the endpoint channel
// reads the facts from the file.
#pragma once

#include <string>

#include "pipette/protocol/model_ops.h"
#include "pipette/util/result.h"

namespace pipette::endpoint {

Result<protocol::ModelInfo> ModelInfoOf(const std::string& path);

}  // namespace pipette::endpoint
