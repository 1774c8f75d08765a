#include "pipette/runtime/openvino.h"

#include "pipette/runtime/onnxruntime.h"

namespace pipette::runtime {

Runtime OpenVino() {
  return {.name = "openvino",
          .reach = WorkerProgram{"pipette-worker-openvino"},
          .model_formats = {"onnx"},
          .params = OpenVinoParams(),
          .resolve_cell = OnnxRuntimeResolveCell};
}

ParamRegistry OpenVinoParams() {
  return ParamRegistry({
      // INFERENCE_NUM_THREADS of the compiled model; made again when it differs from the load's.
      SharedWithLlama("threads", {"n_threads"},
                      "unset: the CPU plugin's own choice (`INFERENCE_NUM_THREADS`, reported by "
                      "the load as `inference_num_threads`)"),
      SharedWithLlama("n_batch", {"n_batch"},
                      "the worker's: 512 prompt tokens per graph run, clamped to the context; "
                      "recorded as applied (`n_batch`)"),
  });
}

}  // namespace pipette::runtime
