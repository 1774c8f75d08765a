#include "pipette/testing/fake_device.h"

namespace pipette::testing {

Result<std::unique_ptr<worker::WorkerChannel>> FakeDevice::StartWorker(
    const std::vector<std::string>& argv) {
  if (workers_ == nullptr) return RuntimeError("this fake device starts no workers");
  return workers_->Launch(argv);
}

Result<std::string> FakeDevice::Stage(const std::string& path) {
  staged.push_back(path);
  return path;
}

Result<void> FakeDevice::CheckLink() {
  ++link_checks;
  return link ? link() : Result<void>();
}

Result<std::string> FakeDevice::RunScript(const std::string& script, double) {
  scripts.push_back(script);
  return shell ? shell(script) : Result<std::string>(std::string());
}

Result<std::unique_ptr<worker::WorkerChannel>> FakeDevice::StartWorkerAfter(
    const std::string& prelude, const std::vector<std::string>& argv) {
  preludes.push_back(prelude);
  return StartWorker(argv);
}

}  // namespace pipette::testing
