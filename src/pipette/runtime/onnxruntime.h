// The ONNX Runtime entry (runtime/registry.h): reached through pipette-worker-onnxruntime
// (workers/onnxruntime, a Python worker on the pinned onnxruntime package, CPU execution
// provider), loads the ONNX folders Pipette converts (format "onnx"), its parameters and its
// clamp of the batch to the context.
#pragma once

#include "pipette/config/params.h"
#include "pipette/runtime/runtime.h"

namespace pipette::runtime {

Runtime OnnxRuntime();

// ONNX Runtime's parameters. `threads` and `n_batch` have llama.cpp's names, so they are one
// parameter each to an experiment (the registry keeps the first entry's definition: request and
// reply fields are the same here); `graph_optimization` is its own.
config::ParamRegistry OnnxRuntimeParams();

// The worker runs at most n_ctx prompt tokens per graph run: a batch above the context is
// clamped to it, so the stored value is the one that runs.
void OnnxRuntimeResolveCell(CellParams& params);

}  // namespace pipette::runtime
