#include "pipette/run/readiness.h"

#include <gtest/gtest.h>

#include <deque>

namespace pipette::run {
namespace {

// A device whose looks are scripted; each look takes its window on a fake clock.
class ScriptedProbe : public ReadyProbe {
 public:
  ScriptedProbe(std::deque<ReadyLook> looks, double* now) : looks_(std::move(looks)), now_(now) {}
  Result<ReadyLook> Look(double window_s) override {
    *now_ += window_s;
    ++calls;
    if (looks_.empty()) return RuntimeError("the probe ran out of looks");
    ReadyLook l = looks_.front();
    if (looks_.size() > 1) looks_.pop_front();  // the last look repeats
    return l;
  }
  int calls = 0;

 private:
  std::deque<ReadyLook> looks_;
  double* now_;
};

ReadyLook Look(std::optional<double> busy, std::optional<double> temp = std::nullopt) {
  ReadyLook l;
  l.cpu_busy = busy;
  l.temp_c = temp;
  return l;
}

struct FakeClock {
  double now = 100;
  double slept = 0;
  ReadyClock clock() {
    return {[this] { return now; },
            [this](double s) {
              now += s;
              slept += s;
            }};
  }
};

TEST(Readiness, WaitsWhileOthersKeepTheCpusBusyThenGoes) {
  FakeClock t;
  ScriptedProbe probe({Look(0.6), Look(0.3), Look(0.04)}, &t.now);
  const ReadyLimits limits;  // 10% over 1 s, 600 s
  auto found = WaitUntilReady(limits, probe, t.clock());
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_TRUE(found->ready);
  EXPECT_EQ(found->looks, 3);
  EXPECT_DOUBLE_EQ(found->waited_s, 3.0);
  EXPECT_EQ(found->reason, "");
  EXPECT_EQ(found->ToJson()["cpu_busy"], 0.04);
  EXPECT_EQ(NotReadyReason(limits, Look(0.6)),
            "other processes kept the CPUs 60% busy over 1 s, above the 10% allowed");
}

TEST(Readiness, APassedDeadlineIsNotReadyWithTheReason) {
  FakeClock t;
  ScriptedProbe probe({Look(0.02, 75.0)}, &t.now);
  ReadyLimits limits;
  limits.temp_max_c = 70;
  limits.deadline_s = 5;
  auto found = WaitUntilReady(limits, probe, t.clock());
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found->ready);
  EXPECT_EQ(found->looks, 5);
  EXPECT_EQ(found->reason,
            "not ready after waiting 5 s: the CPU is at 75.0 °C, above the 70 °C allowed");
  EXPECT_EQ(found->ToJson()["reason"], found->reason);
}

TEST(Readiness, WhatCannotBeReadDoesNotGate) {
  FakeClock t;
  ReadyLook blind;
  blind.cpu_na = "no /proc/stat";
  blind.temp_na = "no thermal zone under /sys/class/thermal";
  ScriptedProbe probe({blind}, &t.now);
  ReadyLimits limits;
  limits.temp_max_c = 70;
  auto found = WaitUntilReady(limits, probe, t.clock());
  ASSERT_TRUE(found.ok());
  EXPECT_TRUE(found->ready);
  const auto j = found->ToJson();
  EXPECT_TRUE(j["cpu_busy"].is_null());
  EXPECT_EQ(j["temp_na"], "no thermal zone under /sys/class/thermal");
  // A probe that fails is an error, not "ready".
  ScriptedProbe broken({}, &t.now);
  EXPECT_FALSE(WaitUntilReady(limits, broken, t.clock()).ok());
}

TEST(Readiness, CooldownWaitsItsSecondsOrUntilTheStartingTemperature) {
  FakeClock t;
  ScriptedProbe unused({Look(0.0, 50.0)}, &t.now);
  auto timed = CoolDown({30, false}, 45.0, {}, unused, t.clock());
  ASSERT_TRUE(timed.ok());
  EXPECT_DOUBLE_EQ(timed->waited_s, 30);
  EXPECT_EQ(unused.calls, 0);

  // Until the temperature is back at the run's start (45 °C): three looks of 1 s.
  ScriptedProbe cooling({Look(0.0, 52.0), Look(0.0, 47.5), Look(0.0, 44.9)}, &t.now);
  auto cooled = CoolDown({0, true}, 45.0, {}, cooling, t.clock());
  ASSERT_TRUE(cooled.ok());
  EXPECT_TRUE(cooled->reached);
  EXPECT_DOUBLE_EQ(cooled->waited_s, 3);
  EXPECT_EQ(cooled->temp_c, 44.9);
  EXPECT_EQ(cooled->ToJson()["start_temp_c"], 45.0);

  // Never back by the deadline: it goes on, saying so.
  ScriptedProbe hot({Look(0.0, 60.0)}, &t.now);
  ReadyLimits limits;
  limits.deadline_s = 4;
  auto stuck = CoolDown({0, true}, 45.0, limits, hot, t.clock());
  ASSERT_TRUE(stuck.ok());
  EXPECT_FALSE(stuck->reached);
  EXPECT_DOUBLE_EQ(stuck->waited_s, 4);

  // No temperature to wait for: by time alone, saying so.
  auto blind = CoolDown({10, true}, std::nullopt, {}, hot, t.clock());
  ASSERT_TRUE(blind.ok());
  EXPECT_DOUBLE_EQ(blind->waited_s, 10);
  EXPECT_NE(blind->note.find("no CPU temperature"), std::string::npos);
}

// Ctrl-C: neither the gate nor the cooldown keeps waiting.
TEST(Readiness, AStopEndsTheWaiting) {
  FakeClock t;
  ScriptedProbe busy({Look(0.9)}, &t.now);
  const int looks_allowed = 3;
  const StopFlag stop = [&] { return busy.calls >= looks_allowed; };
  auto found = WaitUntilReady({}, busy, t.clock(), stop);
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found->ready);
  EXPECT_EQ(found->reason, "interrupted");
  EXPECT_EQ(busy.calls, 3);

  bool stopped = false;
  ReadyClock clock = t.clock();
  const auto sleep = clock.sleep_s;
  clock.sleep_s = [&](double s) {
    sleep(s);
    stopped = true;  // Ctrl-C during the first second
  };
  const double before = t.slept;
  auto cooled = CoolDown({600, false}, std::nullopt, {}, busy, clock, [&] { return stopped; });
  ASSERT_TRUE(cooled.ok());
  EXPECT_DOUBLE_EQ(t.slept - before, 1.0);
}

}  // namespace
}  // namespace pipette::run
