#include "pipette/estimate/estimator.h"

#include <gtest/gtest.h>

namespace pipette::estimate {
namespace {

TEST(Estimator, UnknownUntilSomethingRanWithoutHistory) {
  Estimator e;
  e.Plan({"c", "tg100", "tg", 1, 100});
  EXPECT_LT(e.SecondsLeft(), 0);
  EXPECT_DOUBLE_EQ(e.FractionDone(), 0);
  EXPECT_EQ(e.FromHistory().uncovered, 1);
  EXPECT_EQ(e.FromHistory().covered, 0);
}

TEST(Estimator, UsesPerKindRatesAndFallsBackToOverall) {
  Estimator e;
  e.Plan({"c", "tg100", "tg", 1, 100});
  e.Plan({"c", "pp1000", "pp", 1, 1000});
  e.Done("tg", 10, 1.0);  // 0.1 s per generated token
  // tg: 90 left at 0.1 s; pp unmeasured: overall rate 0.1 s per unit -> 100 s.
  EXPECT_DOUBLE_EQ(e.SecondsLeft(), 9.0 + 100.0);
  e.Done("pp", 500, 0.5);  // 0.001 s per prompt token
  EXPECT_DOUBLE_EQ(e.SecondsLeft(), 9.0 + 0.5);
  // 1.5 s spent, 9.5 s left.
  EXPECT_NEAR(e.FractionDone(), 1.5 / 11.0, 1e-12);
}

// Work found slower than the first rate raises the seconds left; the share done holds where it
// was (a progress line never goes back) until the spent time passes it.
TEST(Estimator, TheShareDoneNeverGoesBack) {
  Estimator e;
  e.Plan({"c", "pp1000", "pp", 1, 1000});
  e.Plan({"c", "tg100", "tg", 1, 100});
  e.Done("pp", 1000, 1.0);  // tg unmeasured: the overall 0.001 s per unit, 0.1 s left
  EXPECT_NEAR(e.FractionDone(), 1.0 / 1.1, 1e-12);
  e.Done("tg", 1, 1.0);  // 1 s per generated token: 99 s left
  EXPECT_DOUBLE_EQ(e.SecondsLeft(), 99.0);
  EXPECT_LT(2.0 / (2.0 + 99.0), 1.0 / 1.1);  // what the share would have fallen to
  EXPECT_NEAR(e.FractionDone(), 1.0 / 1.1, 1e-12);
  e.Done("tg", 99, 99.0);  // all done
  EXPECT_DOUBLE_EQ(e.FractionDone(), 1.0);
}

TEST(Estimator, AModelLoadGivesNoRateForTokens) {
  Estimator e;
  e.Plan({"c", "load", "load", 1, 1});
  e.Plan({"c", "pp1000", "pp", 1, 1000});
  e.Done("load", 1, 0.1);
  // 0.1 s for one load says nothing of a prompt token (it would say 100 s left).
  EXPECT_LT(e.SecondsLeft(), 0);
  e.Done("pp", 100, 0.1);
  EXPECT_DOUBLE_EQ(e.SecondsLeft(), 900 * 0.001);
  e.Plan({"c", "tg10", "tg", 1, 10});  // unmeasured: the overall rate of pp alone
  EXPECT_DOUBLE_EQ(e.SecondsLeft(), 900 * 0.001 + 10 * 0.001);
}

TEST(Estimator, HistoryExactRequestFirstThenPerUnitRate) {
  History h;
  h.seconds_per_request[{"a", "pp100"}] = 0.5;  // measured for this very cell
  h.seconds_per_unit["tg"] = 0.01;              // any tg measured before
  Estimator e(h);
  e.Plan({"a", "pp100", "pp", 4, 100});
  e.Plan({"a", "tg10", "tg", 4, 10});
  e.Plan({"a", "ttft@8", "ttft", 4, 8});  // never measured
  EXPECT_DOUBLE_EQ(e.FromHistory().seconds, 0.5 * 4 + 0.01 * 10 * 4);
  EXPECT_EQ(e.FromHistory().covered, 2);
  EXPECT_EQ(e.FromHistory().uncovered, 1);
  // Before anything ran, the time left is unknown while a kind left has no rate at all.
  EXPECT_LT(e.SecondsLeft(), 0);
}

TEST(Estimator, TimeLeftFromHistoryBeforeAnythingRan) {
  History h;
  h.seconds_per_request[{"a", "pp100"}] = 0.5;
  h.seconds_per_unit["tg"] = 0.01;
  Estimator e(h);
  e.Plan({"a", "pp100", "pp", 4, 100});
  e.Plan({"a", "tg10", "tg", 4, 10});
  EXPECT_DOUBLE_EQ(e.SecondsLeft(), e.FromHistory().seconds);
  EXPECT_DOUBLE_EQ(e.FractionDone(), 0);
  // This run's own rate replaces history's for its kind: pp at 0.002 s per token here.
  e.Done("pp", 100, 0.2);
  EXPECT_DOUBLE_EQ(e.SecondsLeft(), 300 * 0.002 + 0.01 * 40);
  EXPECT_NEAR(e.FractionDone(), 0.2 / (0.2 + 0.6 + 0.4), 1e-12);
}

TEST(Estimator, ADeviceKindNamesItsDevice) {
  EXPECT_EQ(DeviceKind("tg", "board"), "tg@board");
  EXPECT_EQ(DeviceKind("tg", "local"), "tg");
  EXPECT_EQ(DeviceKind("tg", ""), "tg");
  EXPECT_EQ(SplitDeviceKind("tg@board"), (std::pair<std::string, std::string>{"tg", "board"}));
  EXPECT_EQ(SplitDeviceKind("tg"), (std::pair<std::string, std::string>{"tg", ""}));
  EXPECT_EQ(DeviceOfKey("model=a,runtime=llama.cpp,threads=1,device=board"), "board");
  EXPECT_EQ(DeviceOfKey("model=a,runtime=llama.cpp,threads=1"), "");
}

// An emulated board decodes 20x slower than this machine: its work is its own kind, and before it
// has measured a kind, this machine's rate for it is scaled by how much slower the board was at
// what it did measure.
TEST(Estimator, AnotherDeviceLearnsItsOwnRatesScaledFromThisMachineUntilMeasured) {
  Estimator e;
  e.Plan({"a", "pp100", "pp", 1, 100});
  e.Plan({"a", "tg10", "tg", 1, 10});
  e.Plan({"a,device=board", "pp100", DeviceKind("pp", "board"), 1, 100});
  e.Plan({"a,device=board", "tg10", DeviceKind("tg", "board"), 1, 10});
  e.Done("pp", 100, 1.0);  // 0.01 s per prompt token here
  e.Done("tg", 10, 1.0);   // 0.1 s per generated token here
  // Nothing measured on the board yet: this machine's rates.
  EXPECT_DOUBLE_EQ(e.SecondsLeft(), 100 * 0.01 + 10 * 0.1);
  e.Done(DeviceKind("pp", "board"), 50, 10.0);  // 0.2 s per token there: 20x slower
  // pp there at its own rate; tg there at this machine's rate x 20.
  EXPECT_DOUBLE_EQ(e.SecondsLeft(), 50 * 0.2 + 10 * 0.1 * 20);
  e.Done(DeviceKind("tg", "board"), 5, 2.5);  // 0.5 s per token there: its own rate now
  EXPECT_DOUBLE_EQ(e.SecondsLeft(), 50 * 0.2 + 5 * 0.5);
}

TEST(Estimator, NothingPlannedIsNoRequest) {
  Estimator e;
  e.Plan({"a", "ppl", "ppl", 0, 512});  // a corpus of no chunk
  EXPECT_EQ(e.FromHistory().covered + e.FromHistory().uncovered, 0);
}

}  // namespace
}  // namespace pipette::estimate
