#include "pipette/plan/estimate.h"

#include <gtest/gtest.h>

namespace pipette::plan {
namespace {

TEST(Estimate, ExactHistoryFirstThenPerTokenRates) {
  config::Experiment ex;
  ex.tests = {*config::ParseTestName("pp100"), *config::ParseTestName("tg10"),
              *config::ParseTestName("ttft@8")};
  ex.warmup = 1;
  ex.repetitions = 3;
  Cell a;
  a.model.name = "m";
  a.runtime.name = "llama.cpp";
  a.params = {{"threads", "1"}};
  History h;
  h.seconds_per_request[{a.Key(), "pp100"}] = 0.5;  // measured for this very cell
  h.seconds_per_token["tg"] = 0.01;                 // any tg measured before
  Estimate e = EstimateRun(ex, {a}, h);
  EXPECT_DOUBLE_EQ(e.seconds, 0.5 * 4 + 0.01 * 10 * 4);
  EXPECT_EQ(e.covered, 2);
  EXPECT_EQ(e.uncovered, 1);  // no ttft measured before
}

TEST(Estimate, QualityWorkloadsFromChunkAndItemTimes) {
  config::Experiment ex;
  ex.ppl = config::PplSpec{"/nonexistent", 512, 4, 1};
  ex.kld = config::KldSpec{"ref", "/nonexistent", 256, 2, 128, 1};
  ex.gen = config::GenSpec{"/g.jsonl", 3, 10, 100, 1};
  ex.mc = config::McSpec{};
  Cell ref, other;
  ref.model.name = "ref";
  other.model.name = "other";
  History h;
  h.seconds_per_request[{ref.Key(), "ppl"}] = 2.0;  // this cell's ppl chunks took 2 s
  h.seconds_per_token["score"] = 0.001;             // any scored token elsewhere
  h.seconds_per_token["gen"] = 1.5;                 // any generation item
  Estimate e = EstimateRun(ex, {ref, other}, h);
  const double ref_s = 2.0 * 4 + 0.001 * 256 * 2 * 2 + 1.5 * 3;  // ppl, kld + kld_ref, gen
  const double other_s = 0.001 * 512 * 4 + 0.001 * 256 * 2 + 1.5 * 3;
  EXPECT_DOUBLE_EQ(e.seconds, ref_s + other_s);
  EXPECT_EQ(e.uncovered, 2);  // mc, per cell
}

TEST(Estimate, GuessedChunks) {
  EXPECT_EQ(GuessChunks(4 * 512 * 10 + 7, 512, 0), 10);  // all: 4 bytes per token
  EXPECT_EQ(GuessChunks(4 * 512 * 10, 512, 3), 3);
  EXPECT_EQ(GuessChunks(100, 512, 3), 1);  // a short corpus: at least one
  EXPECT_EQ(GuessChunks(0, 512, 3), 3);    // size unknown: what was asked
}

}  // namespace
}  // namespace pipette::plan
