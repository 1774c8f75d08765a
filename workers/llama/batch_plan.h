// The token arithmetic of decoding a request (pp, tg's prompt, ttft, chat's prompt, score):
// the batches a sequence is cut into, and which positions of a score request are read. Pure.
#pragma once

#include <cstdint>
#include <vector>

namespace pipette::llama_worker {

// One batch of a sequence: tokens [start, start + count).
struct BatchSpan {
  int64_t start = 0;
  int64_t count = 0;
};

// `n` tokens in batches of at most `n_batch` (>= 1), in order; none for n = 0.
std::vector<BatchSpan> BatchSpans(int64_t n, int64_t n_batch);

// Whether a score request over `n` tokens scored from `from` reads the logits at position
// `pos`: every position from `from` to n - 2 predicts the token after it.
inline bool ScoredPosition(int64_t pos, int64_t from, int64_t n) {
  return pos >= from && pos <= n - 2;
}

}  // namespace pipette::llama_worker
