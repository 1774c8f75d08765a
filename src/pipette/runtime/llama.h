// The llama.cpp runtime's entry (runtime/registry.h): reached through pipette-worker-llama
// (workers/llama), loads GGUF files, its parameters, and llama.cpp's padding of the context.
#pragma once

#include <cstdint>

#include "pipette/runtime/params.h"
#include "pipette/runtime/runtime.h"

namespace pipette::runtime {

Runtime LlamaCpp();

// llama.cpp's own parameters (docs/config.md's table is made from these and Pipette's own).
ParamRegistry LlamaParams();

// The context llama.cpp runs for a requested n_ctx: rounded up to a multiple of 256, at least
// 256 (llama.cpp pads it so).
int64_t LlamaPaddedContext(int64_t n_ctx);

// llama.cpp's cell rule: n_ctx padded (LlamaPaddedContext); a batch cannot exceed the context,
// nor a micro-batch the batch, so the stored values are the ones that run.
void LlamaResolveCell(CellParams& params);

}  // namespace pipette::runtime
