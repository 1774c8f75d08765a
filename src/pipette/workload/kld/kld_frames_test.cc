// The full-vocabulary KL reducer with FAKE channels that produce frames on the fly, so the
// controller's memory can be checked against a stream far larger than it may hold.
#include "pipette/workload/kld/kld_frames.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include "pipette/quality/kld.h"

namespace pipette::workload {
namespace {
using std::chrono::milliseconds;

// Answers ReadFrame with positions from, from + 1, ...: logits Logit(v, p) * scale. After
// `abort_after` frames it ends with an abort frame; `skip` makes it jump one position.
class FrameFake : public worker::WorkerChannel {
 public:
  FrameFake(int64_t from, double scale) : next_(from), scale_(scale) {}
  Result<nlohmann::json, worker::CallError> Call(nlohmann::json, milliseconds) override {
    return nlohmann::json::object();
  }
  Result<void, worker::CallError> ReadFrame(worker::LogitsFrame* f, size_t n,
                                            milliseconds) override {
    if (sent_ == abort_after) {
      return worker::FailedCall("frames", "the worker ended its frames: llama_decode returned 1");
    }
    ++sent_;
    if (sent_ == skip_at) ++next_;
    f->position = next_++;
    f->t_ns = sent_;
    if (table_.size() != n) {  // computed once: frames are rotations of it (cheap to make)
      table_.resize(n);
      for (size_t v = 0; v < n; ++v) table_[v] = float(std::sin(double(v) / 7) * scale_);
    }
    f->logits.resize(n);
    const size_t shift = size_t(f->position) % n;
    std::copy(table_.begin() + long(shift), table_.end(), f->logits.begin());
    std::copy(table_.begin(), table_.begin() + long(shift), f->logits.end() - long(shift));
    return {};
  }
  std::string StderrTail() const override { return ""; }
  int Pid() const override { return 1; }
  bool Alive() const override { return true; }
  void Shutdown(milliseconds) override {}
  int64_t abort_after = -1, skip_at = -1;

 private:
  int64_t next_, sent_ = 0;
  double scale_;
  std::vector<float> table_;
};

// The fake's logit of id v at position p (before its scale).
double Logit(size_t v, int64_t p, size_t n) { return std::sin(double((v + size_t(p)) % n) / 7); }

// VmHWM of this process in bytes (Linux), 0 when unknown.
int64_t PeakRss() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return 0;
}

std::vector<int64_t> Tokens(size_t n, int64_t n_vocab) {
  std::vector<int64_t> t(n);
  for (size_t i = 0; i < n; ++i) t[i] = int64_t(i * 31) % n_vocab;
  return t;
}

TEST(KldFramesTest, ReducesPositionByPositionAgainstADirectComputation) {
  const size_t n_vocab = 50;
  FrameFake ref(3, 1.0), test(3, 1.3);
  const auto tokens = Tokens(10, n_vocab);
  auto f = ReduceKldFrames(ref, test, 3, 6, n_vocab, tokens,
                           std::chrono::steady_clock::now() + milliseconds(5000));
  ASSERT_TRUE(f.ok()) << f.error().error.message;
  const KldChunkFacts& facts = *f;
  ASSERT_EQ(facts.kl.size(), 6u);
  for (int k = 0; k < 6; ++k) {
    const int p = 3 + k;
    // The same KL written the textbook way, in long double.
    std::vector<long double> r(n_vocab), t(n_vocab);
    long double zr = 0, zt = 0;
    for (size_t v = 0; v < n_vocab; ++v) {
      r[v] = float(Logit(v, p, n_vocab));
      t[v] = float(Logit(v, p, n_vocab) * 1.3);
      zr += std::exp(r[v]);
      zt += std::exp(t[v]);
    }
    long double kl = 0;
    for (size_t v = 0; v < n_vocab; ++v) {
      const long double lp = r[v] - std::log(zr), lq = t[v] - std::log(zt);
      kl += std::exp(lp) * (lp - lq);
    }
    EXPECT_NEAR(facts.kl[k], double(kl), 1e-12);
    EXPECT_GT(facts.kl[k], 0);
    const int64_t next = tokens[size_t(p + 1)];
    EXPECT_NEAR(facts.ref_logprob[k], double(r[size_t(next)] - std::log(zr)), 1e-12);
    EXPECT_NEAR(facts.logprob[k], double(t[size_t(next)] - std::log(zt)), 1e-12);
    EXPECT_EQ(facts.ref_argmax[k], facts.argmax[k]);  // scaling keeps the maximum
  }
  EXPECT_EQ(facts.t_end_ns, 6);
}

TEST(KldFramesTest, IdenticalLogitsGiveExactlyZero) {
  FrameFake ref(0, 1.0), test(0, 1.0);
  auto f = ReduceKldFrames(ref, test, 0, 4, 1000, Tokens(5, 1000),
                           std::chrono::steady_clock::now() + milliseconds(5000));
  ASSERT_TRUE(f.ok());
  const KldChunkFacts& facts = *f;
  for (double kl : facts.kl) EXPECT_EQ(kl, 0.0);
  EXPECT_EQ(facts.ref_logprob, facts.logprob);
}

TEST(KldFramesTest, AnAbortOrAFrameOutOfStepSaysWhichWorker) {
  FrameFake ref(0, 1.0), test(0, 1.1);
  test.abort_after = 2;
  auto f = ReduceKldFrames(ref, test, 0, 4, 20, Tokens(5, 20),
                           std::chrono::steady_clock::now() + milliseconds(5000));
  ASSERT_FALSE(f.ok());
  EXPECT_FALSE(f.error().reference);
  EXPECT_FALSE(f.error().error.broken);
  EXPECT_NE(f.error().error.message.find("llama_decode returned 1"), std::string::npos);

  FrameFake ref2(0, 1.0), test2(0, 1.1);
  ref2.skip_at = 2;
  auto g = ReduceKldFrames(ref2, test2, 0, 4, 20, Tokens(5, 20),
                           std::chrono::steady_clock::now() + milliseconds(5000));
  ASSERT_FALSE(g.ok());
  EXPECT_TRUE(g.error().reference);
  EXPECT_TRUE(g.error().error.broken);
  EXPECT_EQ(g.error().error.message, "the worker sent the frame of position 2 where 1 was due");
}

// The bound docs/metrics.md states: two frames of n_vocab floats, plus five numbers per
// position. 600 positions of a Gemma-3-sized vocabulary stream 1.2 GiB of logits through it.
TEST(KldFramesTest, MemoryStaysTwoFramesWhateverTheStream) {
  const size_t n_vocab = 262144;
  const int64_t n = 600;
  FrameFake ref(0, 1.0), test(0, 1.01);
  const int64_t before = PeakRss();
  auto f = ReduceKldFrames(ref, test, 0, n, n_vocab, Tokens(size_t(n) + 1, n_vocab),
                           std::chrono::steady_clock::now() + milliseconds(600000));
  const int64_t after = PeakRss();
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->kl.size(), size_t(n));
  if (before > 0) {
    // 2 MiB of frames and 60 KiB of facts; 32 MiB leaves room for the allocator.
    EXPECT_LT(after - before, int64_t(32) << 20) << "the reducer held more than a frame each";
  }
}

}  // namespace
}  // namespace pipette::workload
