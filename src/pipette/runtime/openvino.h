// The OpenVINO entry (runtime/registry.h): reached through pipette-worker-openvino
// (workers/openvino, a Python worker on the pinned openvino package: the ONNX frontend and the
// CPU plugin, inference precision f32), loads the ONNX folders Pipette converts (format "onnx"),
// threads and n_batch (llama.cpp's names) and the batch clamped to the context.
#pragma once

#include "pipette/runtime/params.h"
#include "pipette/runtime/runtime.h"

namespace pipette::runtime {

Runtime OpenVino();

ParamRegistry OpenVinoParams();

}  // namespace pipette::runtime
