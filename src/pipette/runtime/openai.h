// The `openai` runtime's entry (runtime/registry.h): any OpenAI-compatible HTTP endpoint, measured
// by the controller itself (endpoint/channel.h) — a server already running (base_url:) or the
// pinned llama-server Pipette starts on the cell's model (server: bundled). Its parameters:
// concurrency (simultaneous streams), api (completions or chat) and threads (the started
// server's).
#pragma once

#include "pipette/runtime/runtime.h"

namespace pipette::runtime {

Runtime OpenAi();

ParamRegistry OpenAiParams();

// The started llama-server pads its context as llama.cpp does (each slot holds n_ctx).
void OpenAiResolveCell(CellParams& params);

}  // namespace pipette::runtime
