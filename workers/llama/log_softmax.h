// Turning one position's logits into the raw facts the protocol's `score` returns: the
// log-probability of chosen tokens, the argmax, the top k, the log-sum-exp. Pure functions.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace pipette::llama_worker {

struct LogitView {
  const float* logits;
  int32_t n_vocab;
};

// log(sum(exp(logits))) in double precision, stable (shifted by the maximum).
double LogSumExp(LogitView v);
// First index of the maximum logit.
int32_t Argmax(LogitView v);
// The k most likely ids with their log-probabilities, most likely first (ties: lower id first).
std::vector<std::pair<int32_t, double>> TopK(LogitView v, int32_t k, double log_sum_exp);

// log of the probability mass of every id NOT in `ids` (summed directly over the rest of the
// vocabulary, not as 1 - sum, so a tiny tail keeps its precision); at least log(1e-300).
double TailLogProb(LogitView v, const std::vector<int32_t>& ids, double log_sum_exp);

}  // namespace pipette::llama_worker
