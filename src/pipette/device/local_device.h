// This machine as a Device: workers are child processes (fork/exec with pipes,
// worker/pipe_transport.h), files are used where they are, the fingerprint and conditions are
// read from /proc and /sys (env/fingerprint.h) and a worker's memory from /proc/<pid>/status.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "pipette/device/device.h"
#include "pipette/util/command.h"

namespace pipette::device {

class LocalDevice : public Device {
 public:
  // Workers start as child processes (worker::ProcessLauncher), or through `launcher` when one
  // is given (a test's fake workers); it must outlive the device.
  explicit LocalDevice(worker::WorkerLauncher* launcher = nullptr) : launcher_(launcher) {}

  std::string Name() const override { return "local"; }
  Result<std::unique_ptr<worker::WorkerChannel>> StartWorker(
      const std::vector<std::string>& argv) override;
  // The absolute path of `path`, which must be a regular file.
  Result<std::string> Stage(const std::string& path) override;
  nlohmann::json Fingerprint(const env::FingerprintOptions& options) override;
  nlohmann::json Conditions() override;
  std::optional<ProcessMemory> WorkerMemory(int pid) const override;
  // This machine's `uname -m`.
  Result<std::string> Arch() override;
  // /bin/sh -c `script`.
  Result<std::string> RunScript(const std::string& script, double timeout_s) override;
  // /bin/sh -c `prelude; exec "$@"` with argv as its arguments.
  Result<std::unique_ptr<worker::WorkerChannel>> StartWorkerAfter(
      const std::string& prelude, const std::vector<std::string>& argv) override;

 private:
  worker::WorkerLauncher* launcher_;
  worker::ProcessLauncher processes_;
  ProcessCommandRunner commands_;
};

// VmRSS and VmHWM of a /proc/<pid>/status text, in bytes (-1 where a line is missing).
ProcessMemory ParseProcStatusMemory(std::string_view status);

}  // namespace pipette::device
