#include "pipette/workload/chunks.h"

#include <fmt/format.h>

namespace pipette::workload {

using nlohmann::json;

int64_t ChunkBos(const protocol::ModelInfo& model) { return model.add_bos ? model.bos : -1; }

protocol::ScoreRequest ChunkScoreRequest(Context& ctx, const std::vector<int64_t>& tokens,
                                         const quality::PplChunk& ch) {
  const std::vector<int64_t> ids = quality::ChunkTokens(tokens, ch, ChunkBos(ctx.Model()));
  protocol::ScoreRequest r;
  r.tokens.assign(ids.begin(), ids.end());
  r.from = ch.from;
  r.n_batch = ctx.NBatch();
  return r;
}

json ChunkFacts(Context& ctx, size_t c, const quality::PplChunk& ch) {
  return {{"chunk", c},
          {"begin", ch.begin},
          {"n_ctx", ch.n_ctx},
          {"from", ch.from},
          {"bos_first", ChunkBos(ctx.Model()) >= 0}};
}

void ChunkDone(Context& ctx, const char* phase, size_t c, size_t n) {
  ctx.Step(fmt::format("{} chunk {}/{}", phase, c + 1, n));
}

}  // namespace pipette::workload
