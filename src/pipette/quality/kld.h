// KL divergence of a candidate from a reference distribution when the reference is kept as its
// top-k log-probabilities (docs/metrics.md "kld"). Small pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace pipette::quality {

struct CoarseKl {
  double kl = 0;        // KL(P_ref || P_test) over the reference's top k plus one tail bucket
  double ref_tail = 0;  // reference mass outside its top k: how coarse the estimate is
};

// Both spans are aligned: the reference's log-probabilities of its top-k ids and the candidate's
// log-probabilities of the same ids. The rest of the vocabulary is one bucket on each side. The
// result is the exact KL between the two coarsened distributions: never more than the
// full-vocabulary KL (merging outcomes cannot increase a divergence), equal to it when the
// reference puts no mass outside its top k; identical inputs give exactly 0.
// `ref_tail_lp` / `test_tail_lp`: log of each side's mass outside those ids, as the runtime
// measured it (exact even when tiny); when absent, 1 - sum of the ids' probabilities.
CoarseKl CoarseKlDivergence(std::span<const double> ref_top_lp, std::span<const double> test_lp,
                            std::optional<double> ref_tail_lp = std::nullopt,
                            std::optional<double> test_tail_lp = std::nullopt);

struct KldSummary {
  int64_t n = 0;  // scored positions
  double mean = 0, median = 0, p99 = 0, max = 0;
  double top1_agree = 0;  // share of positions with the same argmax
  double rms_dp = 0;      // root-mean-square change of the probability of the correct token
  double ppl_ratio = 0;   // ppl(test) / ppl(ref) over the same positions
  double ref_tail_mean = 0;
};

struct KldPosition {
  CoarseKl kl;
  bool same_top1 = false;
  double ref_correct_lp = 0, test_correct_lp = 0;  // log-probabilities of the actual next token
};

KldSummary SummarizeKld(std::span<const KldPosition> positions);

// One scored position compared over the full vocabulary, from the two models' raw logits.
struct LogitsComparison {
  double kl = 0;                            // KL(P_ref || P_test), every id of the vocabulary
  int32_t ref_argmax = 0, test_argmax = 0;  // most likely ids (first on ties)
  double ref_lp = 0, test_lp = 0;           // log-probabilities of the actual next token
  double ref_max_lp = 0;                    // the reference's log-probability of its argmax
};

// Log-softmax of both in double precision, then KL = sum_i p_i (log p_i - log q_i), computed
// as sum_i p_i (r_i - t_i) + (lse_t - lse_r) (the same sum, one exp per value and side).
// Identical logits give exactly 0. The spans have the same length; `next_token` is in range.
LogitsComparison CompareLogits(std::span<const float> ref, std::span<const float> test,
                               int64_t next_token);

}  // namespace pipette::quality
