#include "pipette/runtime/mnn.h"

#include "pipette/runtime/onnxruntime.h"

namespace pipette::runtime {

Runtime Mnn() {
  return {.name = "mnn",
          .reach = WorkerProgram{"pipette-worker-mnn"},
          .model_formats = {"mnn"},
          .params = MnnParams(),
          .resolve_cell = OnnxRuntimeResolveCell};
}

ParamRegistry MnnParams() {
  return ParamRegistry({
      // numThread of the module's runtime manager; made again when it differs from the load's.
      SharedWithLlama("threads", {"n_threads"},
                      "unset: MNN's own (`numThread` not set; the load reports `num_threads`)"),
      SharedWithLlama("n_batch", {"n_batch"},
                      "the worker's: 512 prompt tokens per graph run, clamped to the context; "
                      "recorded as applied (`n_batch`)"),
  });
}

}  // namespace pipette::runtime
