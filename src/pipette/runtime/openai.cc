#include "pipette/runtime/openai.h"

#include "pipette/runtime/llama.h"
#include "pipette/runtime/onnxruntime.h"

namespace pipette::runtime {

Runtime OpenAi() {
  return {.name = "openai",
          .reach = Endpoint{"bin/llama-server"},
          // The model the server serves: for a started server the cell's GGUF file; for a running
          // one the file it was started with (its identity is recorded; the server is asked for
          // `model:`).
          .model_formats = {"gguf"},
          .params = OpenAiParams(),
          .resolve_cell = OpenAiResolveCell,
          .unserved = {
              {"score",
               "an OpenAI-compatible endpoint returns no log-probabilities of given tokens (the "
               "pinned llama-server gives them only for tokens it generates), and ppl, kld and mc "
               "need them: never estimated from the top log-probabilities of generated tokens"},
              {"pp",
               "over HTTP a prompt's processing cannot be timed apart from its first token: "
               "ttft@P measures it, and the server's own prompt_ms is stored with it"},
              {"e2e",
               "e2e@P+N sends the prompt as token ids, which a chat or completion request does "
               "not take: a served model's streams record their e2e per stream in its tg and "
               "ttft@P tests"},
              {"memory",
               "a server already running is not Pipette's process: its memory is not read "
               "(give server: to have Pipette start it)"},
              {"tokenize",
               "neither the endpoint (llama-server's /tokenize) nor a runtime that loads the "
               "model's GGUF (llama.cpp's worker) gives the model's tokenizer: a prompt of "
               "exactly P tokens (ttft) and the token counts of generation items need one"},
          }};
}

ParamRegistry OpenAiParams() {
  using K = ParamKind;
  using S = ParamScope;
  return ParamRegistry({
      SharedWithLlama("threads", {"n_threads"},
                      "the started llama-server's `--threads` (unset: llama-server's own choice); "
                      "a running server's are its own and are not recorded"),
      {.name = "concurrency",
       .help = "streams sent at once to an endpoint: per-stream and aggregate figures",
       .kind = K::kInt,
       .scope = S::kContext,
       .min = 1,
       .max = 256,
       .column = "conc",
       .aliases = {"parallel_requests", "num_concurrent", "max_concurrency", "clients", "users"},
       .request_fields = {"concurrency"},
       .applied_field = "concurrency",
       .must_apply_as_planned = true,
       .default_doc = "1 (one stream at a time); recorded as applied (`concurrency`)",
       .always_column = true,
       .order = 130},
      {.name = "api",
       .help = "the endpoint's API the speed tests use: completions (/v1/completions, prompts as "
               "token ids) or chat (/v1/chat/completions, the server's chat template)",
       .kind = K::kChoice,
       .scope = S::kContext,
       .choices = {"completions", "chat"},
       .column = "api",
       .aliases = {"endpoint", "route", "api_kind"},
       .request_fields = {"api"},
       .applied_field = "api",
       .must_apply_as_planned = true,
       .default_doc = "`completions`; recorded as applied (`api`)",
       .order = 131},
  });
}

void OpenAiResolveCell(CellParams& params) {
  const std::optional<int64_t> requested = IntParam(params, "n_ctx");
  if (!requested) return;
  *FindParam(params, "n_ctx") = std::to_string(LlamaPaddedContext(*requested));
}

}  // namespace pipette::runtime
