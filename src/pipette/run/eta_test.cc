#include "pipette/run/eta.h"

#include <gtest/gtest.h>

namespace pipette::run {
namespace {

TEST(Eta, UnknownUntilSomethingRan) {
  EtaEstimator e;
  e.Plan("tg", 100);
  EXPECT_LT(e.SecondsLeft(), 0);
  EXPECT_DOUBLE_EQ(e.FractionDone(), 0);
}

TEST(Eta, UsesPerKindRatesAndFallsBackToOverall) {
  EtaEstimator e;
  e.Plan("tg", 100);
  e.Plan("pp", 1000);
  e.Done("tg", 10, 1.0);  // 0.1 s per generated token
  // tg: 90 left at 0.1 s; pp unmeasured: overall rate 0.1 s per unit -> 100 s.
  EXPECT_DOUBLE_EQ(e.SecondsLeft(), 9.0 + 100.0);
  e.Done("pp", 500, 0.5);  // 0.001 s per prompt token
  EXPECT_DOUBLE_EQ(e.SecondsLeft(), 9.0 + 0.5);
  // 1.5 s spent, 9.5 s left.
  EXPECT_NEAR(e.FractionDone(), 1.5 / 11.0, 1e-12);
}

}  // namespace
}  // namespace pipette::run
