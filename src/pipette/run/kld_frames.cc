#include "pipette/run/kld_frames.h"

#include <fmt/format.h>

#include "pipette/quality/kld.h"

namespace pipette::run {
namespace {

using std::chrono::milliseconds;

// One frame from `ch`, which must be position `position`.
std::optional<FramesFailure> Next(worker::WorkerChannel& ch, bool reference, int64_t position,
                                  size_t n_vocab, std::chrono::steady_clock::time_point deadline,
                                  worker::LogitsFrame* frame) {
  const auto left =
      std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
  auto r = ch.ReadFrame(frame, n_vocab, std::max(left, milliseconds(1)));
  if (!r.ok()) return FramesFailure{reference, r.error()};
  if (frame->position != position) {
    return FramesFailure{
        reference,
        worker::BrokenCall("frames", fmt::format("the worker sent the frame of position {} where "
                                                 "{} was due",
                                                 frame->position, position))};
  }
  return std::nullopt;
}

}  // namespace

std::optional<FramesFailure> ReduceKldFrames(worker::WorkerChannel& ref,
                                             worker::WorkerChannel& test, int64_t from,
                                             int64_t n_frames, size_t n_vocab,
                                             const std::vector<int64_t>& tokens,
                                             std::chrono::steady_clock::time_point deadline,
                                             KldChunkFacts* out) {
  worker::LogitsFrame rf, tf;  // one frame each, reused: memory stays 2 x n_vocab floats
  for (int64_t k = 0; k < n_frames; ++k) {
    const int64_t p = from + k;
    if (auto f = Next(ref, true, p, n_vocab, deadline, &rf)) return f;
    if (auto f = Next(test, false, p, n_vocab, deadline, &tf)) return f;
    const int64_t next = static_cast<size_t>(p + 1) < tokens.size() ? tokens[size_t(p + 1)] : -1;
    if (next < 0 || static_cast<size_t>(next) >= n_vocab) {
      return FramesFailure{
          false, worker::FailedCall("frames", fmt::format("position {} has no next token in the "
                                                          "vocabulary",
                                                          p))};
    }
    const quality::LogitsComparison c = quality::CompareLogits(rf.logits, tf.logits, next);
    out->kl.push_back(c.kl);
    out->ref_logprob.push_back(c.ref_lp);
    out->logprob.push_back(c.test_lp);
    out->ref_argmax.push_back(c.ref_argmax);
    out->ref_max_logprob.push_back(c.ref_max_lp);
    out->argmax.push_back(c.test_argmax);
    out->ref_t_end_ns = rf.t_ns;
    out->t_end_ns = tf.t_ns;
  }
  return std::nullopt;
}

}  // namespace pipette::run
