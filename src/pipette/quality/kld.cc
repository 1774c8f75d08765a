#include "pipette/quality/kld.h"

#include <algorithm>
#include <cmath>

#include "pipette/stats/stats.h"

namespace pipette::quality {

CoarseKl CoarseKlDivergence(std::span<const double> ref_top_lp, std::span<const double> test_lp,
                            std::optional<double> ref_tail_lp, std::optional<double> test_tail_lp) {
  CoarseKl out;
  double ref_mass = 0, test_mass = 0;
  const size_t k = std::min(ref_top_lp.size(), test_lp.size());
  for (size_t i = 0; i < k; ++i) {
    const double p = std::exp(ref_top_lp[i]);
    ref_mass += p;
    test_mass += std::exp(test_lp[i]);
    out.kl += p * (ref_top_lp[i] - test_lp[i]);
  }
  if (ref_tail_lp && test_tail_lp) {
    out.ref_tail = std::exp(*ref_tail_lp);
    out.kl += out.ref_tail * (*ref_tail_lp - *test_tail_lp);
    return out;
  }
  out.ref_tail = std::max(0.0, 1.0 - ref_mass);
  const double test_tail = std::max(0.0, 1.0 - test_mass);
  if (out.ref_tail > 0) {
    // A candidate with no mass left where the reference has some: bounded by a tiny floor.
    out.kl += out.ref_tail * (std::log(out.ref_tail) - std::log(std::max(test_tail, 1e-300)));
  }
  return out;
}

KldSummary SummarizeKld(std::span<const KldPosition> positions) {
  KldSummary s;
  s.n = static_cast<int64_t>(positions.size());
  if (positions.empty()) return s;
  std::vector<double> kl;
  double agree = 0, dp2 = 0, nll_ref = 0, nll_test = 0, tail = 0;
  for (const KldPosition& p : positions) {
    kl.push_back(p.kl.kl);
    agree += p.same_top1;
    const double dp = std::exp(p.test_correct_lp) - std::exp(p.ref_correct_lp);
    dp2 += dp * dp;
    nll_ref -= p.ref_correct_lp;
    nll_test -= p.test_correct_lp;
    tail += p.kl.ref_tail;
  }
  const double n = static_cast<double>(positions.size());
  s.mean = stats::Mean(kl);
  s.median = stats::Median(kl);
  s.p99 = stats::Percentile(kl, 99);
  s.max = stats::Max(kl);
  s.top1_agree = agree / n;
  s.rms_dp = std::sqrt(dp2 / n);
  s.ppl_ratio = std::exp((nll_test - nll_ref) / n);
  s.ref_tail_mean = tail / n;
  return s;
}

namespace {

struct Softmax {
  double max = 0, lse = 0;
  int32_t argmax = 0;
};

// The maximum (its first index) and log-sum-exp of `v`, in double.
Softmax Normalizer(std::span<const float> v) {
  Softmax s;
  float m = v[0];
  for (size_t i = 1; i < v.size(); ++i) {
    if (v[i] > m) {
      m = v[i];
      s.argmax = static_cast<int32_t>(i);
    }
  }
  s.max = m;
  double sum = 0;
  for (float x : v) sum += std::exp(double(x) - s.max);
  s.lse = s.max + std::log(sum);
  return s;
}

}  // namespace

LogitsComparison CompareLogits(std::span<const float> ref, std::span<const float> test,
                               int64_t next_token) {
  LogitsComparison out;
  if (ref.empty() || ref.size() != test.size()) return out;
  const Softmax r = Normalizer(ref), t = Normalizer(test);
  double weighted = 0;  // sum_i exp(r_i - lse_r) (r_i - t_i)
  for (size_t i = 0; i < ref.size(); ++i) {
    const double d = double(ref[i]) - double(test[i]);
    if (d != 0) weighted += std::exp(double(ref[i]) - r.lse) * d;
  }
  out.kl = weighted + (t.lse - r.lse);
  out.ref_argmax = r.argmax;
  out.test_argmax = t.argmax;
  const size_t k = static_cast<size_t>(next_token);
  out.ref_lp = double(ref[k]) - r.lse;
  out.test_lp = double(test[k]) - t.lse;
  out.ref_max_lp = r.max - r.lse;
  return out;
}

}  // namespace pipette::quality
