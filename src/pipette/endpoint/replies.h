// Streamed HTTP responses as the protocol's replies (docs/protocol.md), so that every workload
// reads an endpoint as it reads a worker: `tg` from the chunks' arrival times, `ttft` from the
// first chunk, `chat` from the answer. Pure: what came over the wire in, the reply out. The
// facts of every stream (arrivals, the server's usage and timings, the token counts checked)
// ride along in `streams`, from which metrics/ derives the serving figures (docs/metrics.md
// "Endpoints").
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "pipette/endpoint/stream.h"

namespace pipette::endpoint {

// Every token's arrival, in order: a chunk holding k tokens (the server's per-chunk count; one
// when it does not say) gives k entries of its arrival; answer and reasoning chunks together.
std::vector<int64_t> TokenArrivals(const StreamRecord& r);

// One stream's facts as stored: arrivals, the server's counts and times, the finish reason and
// the check of the token counts against `asked_tokens` (generated: exactly, or at most when
// `asked_is_limit`, as a generation that may stop at end-of-sequence) and, where known,
// `expected_prompt_tokens`.
nlohmann::json StreamFacts(const Streamed& s, int64_t asked_tokens,
                           std::optional<int64_t> expected_prompt_tokens,
                           bool asked_is_limit = false);

// A failed stream as stored: {"error": message, "kind": ...}.
nlohmann::json FailedStream(const StreamError& e);

// What a request of `c` streams made: the reply, or the error that ends the cell (the server is
// down, refused, or answered with an HTTP error: the first such stream's).
struct Replied {
  nlohmann::json reply;
  std::optional<StreamError> ends_cell;
};

// `tg` asked `n_gen` steps (n_gen + 1 tokens were asked: the first arrival starts the clock).
// The reply's own fields come from the first stream that completed with every token asked (one
// that stopped short is a failed request, kind "short");
// with none, the reply is {"request_failed": {...}, "streams": [...]}.
Replied TgReply(int64_t n_gen, const std::vector<Result<Streamed, StreamError>>& streams);

// `ttft`: from the request's sending to the first chunk that carried a generated token.
Replied TtftReply(const std::vector<Result<Streamed, StreamError>>& streams,
                  std::optional<int64_t> expected_prompt_tokens);

}  // namespace pipette::endpoint
