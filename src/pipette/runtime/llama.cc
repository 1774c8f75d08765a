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
          .makes_variants = true};
}

config::ParamRegistry LlamaParams() {
  // No default_value: the runtime's own applies (see params.h).
  using K = config::ParamKind;
  using S = config::ParamScope;
  const std::vector<std::string> kv_types = {"f32",  "f16",  "bf16", "q8_0",
                                             "q4_0", "q4_1", "q5_0", "q5_1"};
  return config::ParamRegistry({
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
                      "`llama-cli` with no `-t`. Recorded as `llama_n_threads` reports it"},
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
       .default_doc = "llama.cpp's: 2048, which llama.cpp clamps to the context; recorded as "
                      "applied (`llama_n_batch`)"},
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
       .default_doc = "llama.cpp's: 512, clamped to `n_batch`; recorded as applied "
                      "(`llama_n_ubatch`)"},
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
       .default_doc = "Pipette's: 0 = just enough for the cell's tests; always rounded up to a "
                      "multiple of 256 (llama.cpp pads it so)"},
      {.name = "type_k",
       .help = "KV-cache type for keys",
       .kind = K::kChoice,
       .scope = S::kContext,
       .choices = kv_types,
       .column = "type_k",
       .aliases = {"cache_type_k", "ctk", "kv_type_k"},
       .request_fields = {"type_k"},
       .applied_field = "type_k",
       .default_doc = "llama.cpp's: f16"},
      {.name = "type_v",
       .help = "KV-cache type for values",
       .kind = K::kChoice,
       .scope = S::kContext,
       .choices = kv_types,
       .column = "type_v",
       .aliases = {"cache_type_v", "ctv", "kv_type_v"},
       .request_fields = {"type_v"},
       .applied_field = "type_v",
       .default_doc = "llama.cpp's: f16"},
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
                      "`auto (unresolved)` where llama.cpp did not say"},
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
                      "Recorded as sent to llama.cpp"},
      {.name = "depth",
       .help = "tokens already in the context when tg starts",
       .kind = K::kInt,
       .scope = S::kTest,
       .default_value = "0",
       .min = 0,
       .max = 1 << 24,
       .column = "depth",
       .aliases = {"n_depth", "d"},
       .default_doc = "Pipette's: 0"},
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
                      "effect on a CPU-only build); recorded as sent"},
      {.name = "use_mmap",
       .help = "map the model file instead of reading it",
       .kind = K::kBool,
       .scope = S::kLoad,
       .column = "use_mmap",
       .aliases = {"mmap", "mmp", "no_mmap"},
       .request_fields = {"use_mmap"},
       .applied_field = "use_mmap",
       .default_doc = "llama.cpp's: load mode `auto` (mapped where the device supports it); "
                      "recorded as llama.cpp logged the mode it used (`true` = mmap)"},
  });
}

int64_t LlamaPaddedContext(int64_t n_ctx) {
  return std::max<int64_t>(256, (n_ctx + 255) / 256 * 256);
}

namespace {

std::string* Value(CellParams& params, const std::string& name) {
  for (auto& [k, v] : params) {
    if (k == name) return &v;
  }
  return nullptr;
}

}  // namespace

void LlamaResolveCell(CellParams& params) {
  std::string* n_ctx = Value(params, "n_ctx");
  if (!n_ctx) return;
  const int64_t ctx = LlamaPaddedContext(std::stoll(*n_ctx));
  *n_ctx = std::to_string(ctx);
  std::string* n_batch = Value(params, "n_batch");
  if (!n_batch) return;
  const int64_t batch = std::min<int64_t>(std::stoll(*n_batch), ctx);
  *n_batch = std::to_string(batch);
  if (std::string* n_ubatch = Value(params, "n_ubatch")) {
    *n_ubatch = std::to_string(std::min<int64_t>(std::stoll(*n_ubatch), batch));
  }
}

}  // namespace pipette::runtime
