// The ONNX Runtime entry (runtime/registry.h): reached through pipette-worker-onnxruntime
// (workers/onnxruntime, a Python worker on the pinned onnxruntime package, CPU execution
// provider), loads the ONNX folders Pipette converts (format "onnx"), its parameters and its
// clamp of the batch to the context.
#pragma once

#include <string>
#include <vector>

#include "pipette/runtime/params.h"
#include "pipette/runtime/runtime.h"

namespace pipette::runtime {

Runtime OnnxRuntime();

// ONNX Runtime's parameters. `threads` and `n_batch` have llama.cpp's names, so they are one
// parameter each to an experiment (the registry keeps the first entry's definition: request and
// reply fields are the same here); `graph_optimization` is its own.
ParamRegistry OnnxRuntimeParams();

// A parameter llama.cpp has too (one parameter to an experiment): llama.cpp's definition, as the
// registry keeps it, with what a worker on workers/python/pipette_decoder (ONNX Runtime's,
// OpenVINO's, MNN's) is sent and what applies when it is unset there.
ParamDef SharedWithLlama(const char* name, std::vector<std::string> request_fields,
                         std::string default_doc);

// The worker runs at most n_ctx prompt tokens per graph run: a batch above the context is
// clamped to it, so the stored value is the one that runs. The rule of every worker on
// workers/python/pipette_decoder (OpenVINO's and MNN's too).
void OnnxRuntimeResolveCell(CellParams& params);

}  // namespace pipette::runtime
