#include "pipette/runtime/onnxruntime.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "pipette/runtime/llama.h"

namespace pipette::runtime {

Runtime OnnxRuntime() {
  return {.name = "onnxruntime",
          .reach = WorkerProgram{"pipette-worker-onnxruntime"},
          .model_formats = {"onnx"},
          .params = OnnxRuntimeParams(),
          .resolve_cell = OnnxRuntimeResolveCell};
}

ParamDef SharedWithLlama(const char* name, std::vector<std::string> request_fields,
                         std::string default_doc) {
  ParamDef d = *LlamaParams().Find(name);
  d.request_fields = std::move(request_fields);
  d.default_doc = std::move(default_doc);
  return d;
}

ParamRegistry OnnxRuntimeParams() {
  using K = ParamKind;
  using S = ParamScope;
  return ParamRegistry({
      // The worker reads n_threads and replies it; the session is made again when it differs
      // from the load's.
      SharedWithLlama("threads", {"n_threads"},
                      "`intra_op_num_threads` 0: ONNX Runtime's own choice; recorded as the "
                      "worker reports it (`n_threads`)"),
      SharedWithLlama("n_batch", {"n_batch"},
                      "the worker's: 512 prompt tokens per graph run, clamped to the context; "
                      "recorded as applied (`n_batch`)"),
      {.name = "graph_optimization",
       .help = "ONNX Runtime's graph optimization level when the session is made: disable, "
               "basic, extended or all",
       .kind = K::kChoice,
       .scope = S::kLoad,
       .choices = {"disable", "basic", "extended", "all"},
       .column = "graph_opt",
       .aliases = {"graph_optimization_level", "optimization_level", "opt_level", "ort_opt"},
       .request_fields = {"graph_optimization"},
       .applied_field = "graph_optimization",
       .default_doc = "ONNX Runtime's: `all` (`ORT_ENABLE_ALL`); recorded as the worker applied "
                      "it (`graph_optimization`)",
       .order = 120},
  });
}

void OnnxRuntimeResolveCell(CellParams& params) {
  const std::optional<int64_t> n_ctx = IntParam(params, "n_ctx");
  const std::optional<int64_t> n_batch = IntParam(params, "n_batch");
  if (!n_ctx || !n_batch || *n_ctx <= 0) return;
  *FindParam(params, "n_batch") = std::to_string(std::min(*n_batch, *n_ctx));
}

}  // namespace pipette::runtime
