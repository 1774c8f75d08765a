#include "log_softmax.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace pipette::llama_worker {

int32_t Argmax(LogitView v) {
  // Two passes so the compiler can vectorize the maximum (one branchy pass is ~5x slower).
  float max = v.logits[0];
  for (int32_t t = 1; t < v.n_vocab; ++t) max = v.logits[t] > max ? v.logits[t] : max;
  for (int32_t t = 0; t < v.n_vocab; ++t) {
    if (v.logits[t] == max) return t;
  }
  return 0;
}

double LogSumExp(LogitView v) {
  const double max = v.logits[Argmax(v)];
  double sum = 0.0;
  for (int32_t t = 0; t < v.n_vocab; ++t) sum += std::exp(double(v.logits[t]) - max);
  return max + std::log(sum);
}

std::vector<std::pair<int32_t, double>> TopK(LogitView v, int32_t k, double log_sum_exp) {
  k = std::clamp(k, 0, v.n_vocab);
  std::vector<int32_t> ids(static_cast<size_t>(v.n_vocab));
  std::iota(ids.begin(), ids.end(), 0);
  std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), [&](int32_t a, int32_t b) {
    return v.logits[a] > v.logits[b] || (v.logits[a] == v.logits[b] && a < b);
  });
  std::vector<std::pair<int32_t, double>> out;
  out.reserve(static_cast<size_t>(k));
  for (int32_t i = 0; i < k; ++i) out.emplace_back(ids[i], double(v.logits[ids[i]]) - log_sum_exp);
  return out;
}

double TailLogProb(LogitView v, const std::vector<int32_t>& ids, double log_sum_exp) {
  std::vector<char> in(static_cast<size_t>(v.n_vocab), 0);
  for (int32_t id : ids) {
    if (id >= 0 && id < v.n_vocab) in[static_cast<size_t>(id)] = 1;
  }
  double sum = 0.0;
  for (int32_t t = 0; t < v.n_vocab; ++t) {
    if (!in[static_cast<size_t>(t)]) sum += std::exp(double(v.logits[t]) - log_sum_exp);
  }
  return std::log(std::max(sum, 1e-300));  // finite, so it survives JSON
}

}  // namespace pipette::llama_worker
