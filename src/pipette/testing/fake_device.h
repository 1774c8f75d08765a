// A Device for tests, named as a fake (no phone or board can run here): its workers a launcher's
// (testing::FakeWorker), its files staged as they are named (they exist only in the fake: the
// local device's Stage would refuse "/m/a.gguf"), and its name, architecture, facts, conditions,
// link and shell what the test sets. It starts no process and reads no file. Tests configure it
// instead of subclassing LocalDevice.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/device/device.h"
#include "pipette/worker/channel.h"

namespace pipette::testing {

class FakeDevice : public device::Device {
 public:
  // `workers` must outlive the device.
  explicit FakeDevice(worker::WorkerLauncher* workers, std::string device_name = "local")
      : name(std::move(device_name)), workers_(workers) {}

  std::string Name() const override { return name; }
  Result<std::unique_ptr<worker::WorkerChannel>> StartWorker(
      const std::vector<std::string>& argv) override;
  Result<std::string> Stage(const std::string& path) override;
  nlohmann::json Fingerprint(const env::FingerprintOptions&) override { return fingerprint; }
  nlohmann::json Conditions() override { return conditions; }
  std::optional<device::ProcessMemory> WorkerMemory(int) const override { return memory; }
  Result<std::string> Arch() override { return arch; }
  Result<void> CheckLink() override;
  Result<std::string> RunScript(const std::string& script, double timeout_s) override;
  // The prelude is recorded (preludes), then the worker starts as StartWorker starts it.
  Result<std::unique_ptr<worker::WorkerChannel>> StartWorkerAfter(
      const std::string& prelude, const std::vector<std::string>& argv) override;

  // What the device is and gives.
  std::string name;
  std::string arch = "x86_64";
  nlohmann::json fingerprint = {{"cpu_model", "fake"}};
  nlohmann::json conditions = nlohmann::json::object();
  std::optional<device::ProcessMemory> memory;  // WorkerMemory's answer: none by default
  // The link: up while it gives no error (CheckLink counts its checks).
  std::function<Result<void>()> link;
  // The shell: each script's output, or an error; "" for every script by default.
  std::function<Result<std::string>(const std::string& script)> shell;

  // What happened.
  int link_checks = 0;
  std::vector<std::string> staged, scripts, preludes;

 private:
  worker::WorkerLauncher* workers_;
};

}  // namespace pipette::testing
