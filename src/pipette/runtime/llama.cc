#include "pipette/runtime/llama.h"

#include <algorithm>
#include <string>
#include <vector>

namespace pipette::runtime {

Runtime LlamaCpp() {
  return {.name = "llama.cpp",
          .reach = WorkerProgram{"pipette-worker-llama"},
          .model_formats = {"gguf"},
          .params = LlamaParams(),
          .resolve_cell = LlamaResolveCell,
          .makes_variants = true,
          .renders_chat_templates = true,
          .runs_on_devices = true};
}

ParamRegistry LlamaParams() {
  // No default_value: the runtime's own applies (see params.h). n_ctx and depth are Pipette's
  // own (runtime/pipette_params.cc); `order` keeps the places they always had among these.
  using K = ParamKind;
  using S = ParamScope;
  const std::vector<std::string> kv_types = {"f32",  "f16",  "bf16", "q8_0",
                                             "q4_0", "q4_1", "q5_0", "q5_1"};
  return ParamRegistry({
      {.name = "threads",
       .help = "CPU threads for decoding and prompt processing (both)",
       .kind = K::kInt,
       .scope = S::kContext,
       .min = 1,
       .max = 1024,
       .column = "threads",
       .aliases = {"n_threads", "n_thread", "t", "threads_batch", "n_threads_batch", "nthread",
                   "thread_count"},
       .request_fields = {"n_threads", "n_threads_batch"},
       .applied_field = "n_threads",
       .default_doc = "llama.cpp's tools': `common_cpu_get_num_math()`, the physical cores "
                      "(performance cores on a hybrid x86 CPU); the same as `llama-bench` and "
                      "`llama-cli` with no `-t`. Recorded as `llama_n_threads` reports it",
       .always_column = true,
       .order = 10},
      {.name = "n_batch",
       .help = "logical batch: prompt tokens handed to one decode call",
       .kind = K::kInt,
       .scope = S::kContext,
       .min = 1,
       .max = 1 << 20,
       .column = "n_batch",
       .aliases = {"batch_size", "batch", "b"},
       .request_fields = {"n_batch"},
       .applied_field = "n_batch",
       .must_apply_as_planned = true,
       .default_doc = "llama.cpp's: 2048, which llama.cpp clamps to the context; recorded as "
                      "applied (`llama_n_batch`)",
       .order = 20},
      {.name = "n_ubatch",
       .help = "physical batch computed at once inside a decode call",
       .kind = K::kInt,
       .scope = S::kContext,
       .min = 1,
       .max = 1 << 20,
       .column = "n_ubatch",
       .aliases = {"ubatch_size", "ubatch", "ub"},
       .request_fields = {"n_ubatch"},
       .applied_field = "n_ubatch",
       .must_apply_as_planned = true,
       .default_doc = "llama.cpp's: 512, clamped to `n_batch`; recorded as applied "
                      "(`llama_n_ubatch`)",
       .order = 30},
      {.name = "type_k",
       .help = "KV-cache type for keys",
       .kind = K::kChoice,
       .scope = S::kContext,
       .choices = kv_types,
       .column = "type_k",
       .aliases = {"cache_type_k", "ctk", "kv_type_k"},
       .request_fields = {"type_k"},
       .applied_field = "type_k",
       .default_doc = "llama.cpp's: f16",
       .changes_distribution = true,
       .order = 50},
      {.name = "type_v",
       .help = "KV-cache type for values",
       .kind = K::kChoice,
       .scope = S::kContext,
       .choices = kv_types,
       .column = "type_v",
       .aliases = {"cache_type_v", "ctv", "kv_type_v"},
       .request_fields = {"type_v"},
       .applied_field = "type_v",
       .default_doc = "llama.cpp's: f16",
       .changes_distribution = true,
       .order = 60},
      {.name = "flash_attn",
       .help = "flash attention: auto (the runtime decides), on or off",
       .kind = K::kChoice,
       .scope = S::kContext,
       .choices = {"auto", "on", "off"},
       .column = "flash_attn",
       .aliases = {"fa", "flash_attention", "flash_attn_type"},
       .value_aliases = {{"true", "on"}, {"false", "off"}, {"enabled", "on"}, {"disabled", "off"}},
       .request_fields = {"flash_attn"},
       .applied_field = "flash_attn_resolved",
       .runtime_resolves = true,
       .unreported = "auto",
       .default_doc = "llama.cpp's: `auto`, which llama.cpp resolves per device; recorded as it "
                      "resolved it (`on`/`off`, read from llama.cpp's log), shown `on (auto)`; "
                      "`auto (unresolved)` where llama.cpp did not say",
       .always_column = true,
       .changes_distribution = true,
       .order = 70},
      {.name = "swa_full",
       .help = "full-size sliding-window KV cache: the sliding-window attention layers keep "
               "the whole context (true) or only their window (false); changes only models with "
               "such layers (Gemma 3, ...)",
       .kind = K::kBool,
       .scope = S::kContext,
       .column = "swa_full",
       .aliases = {"swa", "swa_full_cache"},
       .request_fields = {"swa_full"},
       .applied_field = "swa_full",
       .default_doc = "libllama's: `true` (`llama_context_default_params()`); `llama-bench` sets "
                      "`false`, as `llama-cli` and `llama-server` do without `--swa-full`. "
                      "Recorded as sent to llama.cpp",
       .order = 80},
      {.name = "n_gpu_layers",
       .help = "layers offloaded to an accelerator (-1: every layer)",
       .kind = K::kInt,
       .scope = S::kLoad,
       .min = -1,
       .max = 100000,
       .column = "n_gpu_layers",
       .aliases = {"ngl", "gpu_layers", "n_gpu"},
       .request_fields = {"n_gpu_layers"},
       .applied_field = "n_gpu_layers",
       .default_doc = "llama.cpp's: -1 (every layer to an accelerator, where there is one; no "
                      "effect on a CPU-only build); recorded as sent",
       .order = 100},
      {.name = "use_mmap",
       .help = "map the model file instead of reading it",
       .kind = K::kBool,
       .scope = S::kLoad,
       .column = "use_mmap",
       .aliases = {"mmap", "mmp", "no_mmap"},
       .request_fields = {"use_mmap"},
       .applied_field = "use_mmap",
       .default_doc = "llama.cpp's: load mode `auto` (mapped where the device supports it); "
                      "recorded as llama.cpp logged the mode it used (`true` = mmap)",
       .order = 110},
  });
}

int64_t LlamaPaddedContext(int64_t n_ctx) {
  return std::max<int64_t>(256, (n_ctx + 255) / 256 * 256);
}

void LlamaResolveCell(CellParams& params) {
  const std::optional<int64_t> requested = IntParam(params, "n_ctx");
  if (!requested) return;
  const int64_t ctx = LlamaPaddedContext(*requested);
  *FindParam(params, "n_ctx") = std::to_string(ctx);
  const std::optional<int64_t> n_batch = IntParam(params, "n_batch");
  if (!n_batch) return;
  const int64_t batch = std::min<int64_t>(*n_batch, ctx);
  *FindParam(params, "n_batch") = std::to_string(batch);
  if (const std::optional<int64_t> n_ubatch = IntParam(params, "n_ubatch")) {
    *FindParam(params, "n_ubatch") = std::to_string(std::min<int64_t>(*n_ubatch, batch));
  }
}

}  // namespace pipette::runtime
