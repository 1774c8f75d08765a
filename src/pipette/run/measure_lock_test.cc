#include "pipette/run/measure_lock.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>

#include "pipette/util/temp_dir.h"

namespace pipette::run {
namespace {

// flock locks belong to an open file: two acquisitions in one process contend like two runs.
TEST(MeasureLock, ASecondHolderWaitsThenIsToldWhoHoldsIt) {
  const TempDir dir("pipette-lock-test");
  LockOptions o;
  o.path = dir / "lock";
  o.wait_s = 0.5;
  auto first =
      MeasureLock::Acquire(o, {{"pid", 111}, {"store", "a.db"}, {"command", "pipette run"}});
  ASSERT_TRUE(first.ok()) << first.error().message;
  (*first)->Describe({{"run_id", 7}});
  std::vector<std::string> said;
  o.say = [&](const std::string& s) { said.push_back(s); };
  const auto t0 = std::chrono::steady_clock::now();
  auto second = MeasureLock::Acquire(o, {{"pid", 222}});
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().exit_code, 2);
  EXPECT_GE(waited, 0.5);
  EXPECT_NE(second.error().message.find("pid 111 (run 7 of a.db, pipette run"), std::string::npos)
      << second.error().message;
  EXPECT_NE(second.error().message.find("--lock-timeout"), std::string::npos);
  ASSERT_FALSE(said.empty());
  EXPECT_NE(said[0].find("waiting for another Pipette"), std::string::npos);

  o.no_wait = true;
  auto third = MeasureLock::Acquire(o, {{"pid", 333}});
  ASSERT_FALSE(third.ok());
  EXPECT_NE(third.error().message.find("--no-wait refuses at once"), std::string::npos);

  first->reset();  // released: the next one takes it at once
  auto fourth = MeasureLock::Acquire(o, {{"pid", 444}});
  ASSERT_TRUE(fourth.ok()) << fourth.error().message;
  EXPECT_EQ((*fourth)->Record().value("held", false), true);
  EXPECT_LT((*fourth)->Record().value("waited_s", 99.0), 0.5);
}

TEST(MeasureLock, StoppingWhileWaitingEndsTheWaitAt130) {
  const TempDir dir("pipette-lock-test");
  LockOptions o;
  o.path = dir / "lock";
  auto first = MeasureLock::Acquire(o, {{"pid", 1}});
  ASSERT_TRUE(first.ok());
  std::atomic<bool> stop{true};
  o.stop = &stop;
  auto second = MeasureLock::Acquire(o, {{"pid", 2}});
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().exit_code, 130);
}

TEST(MeasureLock, OneLockFilePerMachineUnlessTheEnvironmentNamesAnother) {
  ::setenv("PIPETTE_LOCK_FILE", "/somewhere/else.lock", 1);
  EXPECT_EQ(DefaultLockPath(), "/somewhere/else.lock");
  ::unsetenv("PIPETTE_LOCK_FILE");
  const std::string path = DefaultLockPath();
  EXPECT_TRUE(path == "/run/lock/pipette-measure.lock" || path == "/tmp/pipette-measure.lock")
      << path;
}

TEST(MeasureLock, HolderDescriptions) {
  EXPECT_EQ(DescribeHolder(nullptr), "an unknown process");
  EXPECT_EQ(DescribeHolder({{"pid", 5}}), "pid 5");
  EXPECT_EQ(DescribeHolder({{"pid", 5}, {"store", "s.db"}, {"since", "T"}}),
            "pid 5 (store s.db, since T)");
  // Another process's lock file: fields of another type read as absent, never throw.
  EXPECT_EQ(DescribeHolder({{"pid", 5}, {"run_id", 2}, {"store", 7}, {"command", {1}}}),
            "pid 5 (run 2 of ?)");
}

}  // namespace
}  // namespace pipette::run
