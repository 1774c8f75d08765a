#include "pipette/workload/kld/kld_frames.h"

#include <fmt/format.h>

#include "pipette/quality/kld.h"

namespace pipette::workload {
namespace {

using std::chrono::milliseconds;

// One frame from `ch`, which must be position `position`.
Result<void, FramesFailure> Next(worker::WorkerChannel& ch, bool reference, int64_t position,
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
  return {};
}

}  // namespace

Result<KldChunkFacts, FramesFailure> ReduceKldFrames(
    worker::WorkerChannel& ref, worker::WorkerChannel& test, int64_t from, int64_t n_frames,
    size_t n_vocab, const std::vector<int64_t>& tokens,
    std::chrono::steady_clock::time_point deadline) {
  KldChunkFacts facts;
  worker::LogitsFrame rf, tf;  // one frame each, reused: memory stays 2 x n_vocab floats
  for (int64_t k = 0; k < n_frames; ++k) {
    const int64_t p = from + k;
    if (auto f = Next(ref, true, p, n_vocab, deadline, &rf); !f) return f.error();
    if (auto f = Next(test, false, p, n_vocab, deadline, &tf); !f) return f.error();
    const int64_t next = static_cast<size_t>(p + 1) < tokens.size() ? tokens[size_t(p + 1)] : -1;
    if (next < 0 || static_cast<size_t>(next) >= n_vocab) {
      return FramesFailure{
          false, worker::FailedCall("frames", fmt::format("position {} has no next token in the "
                                                          "vocabulary",
                                                          p))};
    }
    const quality::LogitsComparison c = quality::CompareLogits(rf.logits, tf.logits, next);
    facts.kl.push_back(c.kl);
    facts.ref_logprob.push_back(c.ref_lp);
    facts.logprob.push_back(c.test_lp);
    facts.ref_argmax.push_back(c.ref_argmax);
    facts.ref_max_logprob.push_back(c.ref_max_lp);
    facts.argmax.push_back(c.test_argmax);
    facts.ref_t_end_ns = rf.t_ns;
    facts.t_end_ns = tf.t_ns;
  }
  return facts;
}

}  // namespace pipette::workload
