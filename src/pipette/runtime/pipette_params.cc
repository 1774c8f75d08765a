#include "pipette/runtime/pipette_params.h"

namespace pipette::runtime {

ParamRegistry PipetteParams() {
  using K = ParamKind;
  using S = ParamScope;
  // `order` places them among llama.cpp's as they always were (cell keys are stored).
  return ParamRegistry({
      {.name = "n_ctx",
       .help = "context size in tokens",
       .kind = K::kInt,
       .scope = S::kContext,
       .default_value = "0",
       .min = 0,
       .max = 1 << 24,
       .column = "n_ctx",
       .aliases = {"ctx_size", "ctx", "c", "context", "context_size", "context_length"},
       .request_fields = {"n_ctx"},
       .must_apply_as_planned = true,
       .default_doc = "Pipette's: 0 = just enough for the cell's tests; then the runtime's rule "
                      "(llama.cpp: rounded up to a multiple of 256, as llama.cpp pads it)",
       .order = 40},
      {.name = "depth",
       .help = "tokens already in the context when pp and tg start",
       .kind = K::kInt,
       .scope = S::kTest,
       .default_value = "0",
       .min = 0,
       .max = 1 << 24,
       .column = "depth",
       .aliases = {"n_depth", "d"},
       .default_doc = "Pipette's: 0",
       .order = 90},
  });
}

}  // namespace pipette::runtime
