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

}  // namespace
}  // namespace pipette::plan
