// LocalDevice on this machine: a real worker started (tests/conformance/fixture_worker.py, a
// TEST FIXTURE on the Python worker module that answers with fixed data, on python3), a file
// staged, the fingerprint, the conditions and a process's memory read from /proc.
#include "pipette/device/local_device.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "pipette/protocol/ops.h"
#include "pipette/testing/paths.h"
#include "pipette/util/temp_dir.h"

namespace pipette::device {
namespace {
namespace fs = std::filesystem;
using std::chrono::milliseconds;

std::string Python3() {
  for (const char* p : {"/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"}) {
    if (fs::exists(p)) return p;
  }
  return "";
}

TEST(LocalDevice, StartsAWorkerAndSpeaksTheProtocol) {
  const std::string python = Python3();
  ASSERT_FALSE(python.empty()) << "python3 is needed (the conformance tests use it too)";
  LocalDevice device;
  auto ch = device.StartWorker(
      {python, "-B", pipette::testing::SourceDir() + "/tests/conformance/fixture_worker.py"});
  ASSERT_TRUE(ch.ok()) << ch.error().message;
  auto hello = (*ch)->Call({{"op", protocol::op::kHello}}, milliseconds(10000));
  ASSERT_TRUE(hello.ok()) << hello.error().message;
  EXPECT_EQ((*hello)["runtime"], "fixture");
  EXPECT_GT((*ch)->Pid(), 0);
  // The device reads the running worker's memory itself.
  auto mem = device.WorkerMemory((*ch)->Pid());
  ASSERT_TRUE(mem.has_value());
  EXPECT_GT(mem->rss_bytes, 0);
  EXPECT_GE(mem->hwm_bytes, mem->rss_bytes);
  const int pid = (*ch)->Pid();
  (*ch)->Shutdown(milliseconds(5000));
  EXPECT_FALSE((*ch)->Alive());
  EXPECT_FALSE(device.WorkerMemory(pid).has_value());  // gone, and reaped
}

TEST(LocalDevice, AProgramThatCannotRunIsAnError) {
  LocalDevice device;
  EXPECT_FALSE(device.StartWorker({}).ok());
  TempDir dir("pipette-device-test");
  auto ch = device.StartWorker({dir / "no-such-worker"});
  // Either the start fails or the channel is dead at once: no worker serves.
  if (ch.ok()) {
    EXPECT_FALSE((*ch)->Call({{"op", "hello"}}, milliseconds(5000)).ok());
  }
}

TEST(LocalDevice, StagesAFileWhereItIs) {
  TempDir dir("pipette-device-test");
  const std::string file = dir / "model.gguf";
  std::ofstream(file) << "x";
  LocalDevice device;
  auto staged = device.Stage(file);
  ASSERT_TRUE(staged.ok()) << staged.error().message;
  EXPECT_EQ(*staged, fs::absolute(file).lexically_normal().string());
  auto missing = device.Stage(dir / "absent.gguf");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("absent.gguf"), std::string::npos);
  EXPECT_FALSE(device.Stage(dir.path().string()).ok());  // a folder is not a file
}

TEST(LocalDevice, FingerprintHasTheMachineFacts) {
  LocalDevice device;
  EXPECT_EQ(device.Name(), "local");
  env::FingerprintOptions options;
  options.measure_bandwidth = false;
  const nlohmann::json fp = device.Fingerprint(options);
  for (const char* key :
       {"cpu_model", "cpu_cores_logical", "mem_total_bytes", "os", "kernel", "arch", "hostname"}) {
    EXPECT_TRUE(fp.contains(key)) << key;
  }
  EXPECT_GT(fp["cpu_cores_logical"].get<int>(), 0);
  EXPECT_GT(fp["mem_total_bytes"].get<int64_t>(), 0);
  EXPECT_FALSE(fp.contains("memory_bandwidth"));  // not measured when not asked
}

TEST(LocalDevice, ConditionsAreReadNow) {
  LocalDevice device;
  const nlohmann::json c = device.Conditions();
  for (const char* key : {"load_avg_1", "load_avg_5", "load_avg_15", "mem_available_bytes",
                          "mem_free_bytes", "cpu_temp_c", "cpu_freq_cur_khz"}) {
    EXPECT_TRUE(c.contains(key)) << key;  // null where this machine does not expose it
  }
  ASSERT_TRUE(c["load_avg_1"].is_number());  // Linux always has /proc/loadavg
  EXPECT_GE(c["load_avg_1"].get<double>(), 0);
  ASSERT_TRUE(c["mem_available_bytes"].is_number());
  EXPECT_GT(c["mem_available_bytes"].get<int64_t>(), 0);
}

TEST(LocalDevice, ReadsThisProcesssMemory) {
  LocalDevice device;
  auto mem = device.WorkerMemory(static_cast<int>(::getpid()));
  ASSERT_TRUE(mem.has_value());
  EXPECT_GT(mem->rss_bytes, 0);
  EXPECT_FALSE(device.WorkerMemory(0).has_value());
}

TEST(ProcStatusMemory, ParsesVmRssAndVmHwm) {
  const ProcessMemory m = ParseProcStatusMemory(
      "Name:\tpython3\nVmPeak:\t  20000 kB\nVmHWM:\t    9000 kB\nVmRSS:\t    8000 kB\n");
  EXPECT_EQ(m.rss_bytes, 8000 * 1024);
  EXPECT_EQ(m.hwm_bytes, 9000 * 1024);
  const ProcessMemory none = ParseProcStatusMemory("Name:\tkthreadd\nVmRSSx:\t1 kB\n");
  EXPECT_EQ(none.rss_bytes, -1);
  EXPECT_EQ(none.hwm_bytes, -1);
}

}  // namespace
}  // namespace pipette::device
