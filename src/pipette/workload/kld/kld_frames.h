// The full-vocabulary KL divergence of one chunk, reduced position by position from the logits
// frames of two workers scoring the same tokens (docs/metrics.md "kld"; docs/protocol.md
// "Frames"). The controller holds one frame per worker at a time, whatever the vocabulary.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "pipette/util/result.h"
#include "pipette/worker/channel.h"

namespace pipette::workload {

// Per scored position, aligned with p = from, from + 1, ...: the raw facts a `kld` sample keeps.
struct KldChunkFacts {
  std::vector<double> kl, ref_logprob, logprob;
  std::vector<double> ref_max_logprob;  // the reference's log-probability of its argmax
  std::vector<int32_t> ref_argmax, argmax;
  int64_t ref_t_end_ns = 0, t_end_ns = 0;  // each worker's clock at its last frame
};

struct FramesFailure {
  bool reference = false;  // the reference worker's frames failed (else the cell's)
  worker::CallError error;
};

// Reads `n_frames` frames from `ref` and from `test` in turn (each must have answered a `score`
// with `logits: true` that announced them), checks that frame k is position `from + k` with
// `n_vocab` values, and compares them (quality::CompareLogits) with `tokens[p + 1]` as the
// actual next token. Every frame must arrive before `deadline`. The chunk's facts, or which
// worker's frames failed and how.
Result<KldChunkFacts, FramesFailure> ReduceKldFrames(
    worker::WorkerChannel& ref, worker::WorkerChannel& test, int64_t from, int64_t n_frames,
    size_t n_vocab, const std::vector<int64_t>& tokens,
    std::chrono::steady_clock::time_point deadline);

}  // namespace pipette::workload
