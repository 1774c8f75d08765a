#include "pipette/testing/fake_device.h"

#include <gtest/gtest.h>

#include "pipette/testing/fake_worker.h"

namespace pipette::testing {
namespace {

// What a test sets is what the device gives; what the runner asks is recorded; its workers are
// the launcher's.
TEST(FakeDevice, GivesWhatTheTestSetsAndRecordsWhatItIsAsked) {
  FakeWorker workers;
  FakeDevice d(&workers, "board");
  d.arch = "aarch64";
  EXPECT_EQ(d.Name(), "board");
  EXPECT_EQ(*d.Arch(), "aarch64");
  EXPECT_EQ(*d.Stage("/m/a.gguf"), "/m/a.gguf");  // exists only in the fake
  EXPECT_EQ(d.staged, (std::vector<std::string>{"/m/a.gguf"}));
  EXPECT_FALSE(d.WorkerMemory(1).has_value());
  EXPECT_TRUE(d.CheckLink().ok());
  d.link = [] { return Status(RuntimeError("down")); };
  EXPECT_EQ(d.CheckLink().error().message, "down");
  EXPECT_EQ(d.link_checks, 2);
  EXPECT_EQ(*d.RunScript("echo hi", 1), "");
  d.shell = [](const std::string& s) { return Result<std::string>(s + "!"); };
  EXPECT_EQ(*d.RunScript("x", 1), "x!");
  EXPECT_EQ(d.scripts, (std::vector<std::string>{"echo hi", "x"}));
  ASSERT_TRUE(d.StartWorkerAfter("ulimit -v 1", {"/fake/worker"}).ok());
  EXPECT_EQ(d.preludes, (std::vector<std::string>{"ulimit -v 1"}));
  EXPECT_EQ(workers.launches(), 1);
  FakeDevice none(nullptr);
  EXPECT_FALSE(none.StartWorker({"/w"}).ok());
}

}  // namespace
}  // namespace pipette::testing
