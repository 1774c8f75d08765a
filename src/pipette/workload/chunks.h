// What ppl and kld share: the corpus in chunks (quality/ppl.h), each scored with one `score`
// request over its second half.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "pipette/protocol/quality_ops.h"
#include "pipette/quality/ppl.h"
#include "pipette/workload/context.h"

namespace pipette::workload {

// The BOS id a chunk starts with (its first token replaced, as llama-perplexity does) when the
// loaded model's tokenizer adds BOS (`model`: load_model's `model`); -1 when it does not.
int64_t ChunkBos(const protocol::ModelInfo& model);

// The `score` request of a chunk of `tokens` for the context's model and batch.
protocol::ScoreRequest ChunkScoreRequest(Context& ctx, const std::vector<int64_t>& tokens,
                                         const quality::PplChunk& ch);

// What a chunk's sample says was asked.
nlohmann::json ChunkFacts(Context& ctx, size_t c, const quality::PplChunk& ch);

// The progress line after chunk `c` of `n`.
void ChunkDone(Context& ctx, const char* phase, size_t c, size_t n);

}  // namespace pipette::workload
