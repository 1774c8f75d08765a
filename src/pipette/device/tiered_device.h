// A device with an emulated tier (a device entry's `tier:`, env/cgroup_tier.h): every worker it
// starts runs in fresh cgroups of its own on the device, made with the tier's cpuset, CPU quota and
// memory cap before the worker starts and joined by the worker's own shell before it becomes the
// worker, so nothing of it runs outside its limits. The cgroups of a worker are removed when the
// next one starts (its counters are read until then: an oom-killed worker's peak stays readable)
// and when the device is closed; before the first, the cgroups that controllers of this host (and
// boot) left when they were killed before they could remove theirs (SIGKILL, a crash) are swept.
// Wraps any device whose shell it can run scripts in: this machine, a board, a phone.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pipette/device/device.h"
#include "pipette/env/cgroup_tier.h"
#include "pipette/env/process.h"

namespace pipette::device {

class TieredDevice : public Device {
 public:
  // `processes`: this machine's process table (the real one when null), which tells whether the
  // controller that named a leftover cgroup is alive.
  TieredDevice(std::unique_ptr<Device> inner, env::Tier tier, std::string name,
               std::unique_ptr<env::ProcessTable> processes = nullptr);
  ~TieredDevice() override;
  TieredDevice(const TieredDevice&) = delete;
  TieredDevice& operator=(const TieredDevice&) = delete;

  std::string Name() const override { return name_; }
  // Removes the cgroups of the worker before (when it has ended), makes this worker's, and starts
  // it inside them.
  Result<std::unique_ptr<worker::WorkerChannel>> StartWorker(
      const std::vector<std::string>& argv) override {
    return StartWorkerAfter("", argv);
  }
  Result<std::unique_ptr<worker::WorkerChannel>> StartWorkerAfter(
      const std::string& prelude, const std::vector<std::string>& argv) override;
  Result<nlohmann::json> TierReading(int64_t pid, bool reset_peak) override;

  Result<std::string> Stage(const std::string& path) override { return inner_->Stage(path); }
  nlohmann::json Fingerprint(const env::FingerprintOptions& options) override {
    return inner_->Fingerprint(options);
  }
  nlohmann::json Conditions() override { return inner_->Conditions(); }
  std::optional<ProcessMemory> WorkerMemory(int pid) const override {
    return inner_->WorkerMemory(pid);
  }
  Result<std::string> Arch() override { return inner_->Arch(); }
  Result<void> CheckLink() override { return inner_->CheckLink(); }
  Result<std::string> RunScript(const std::string& script, double timeout_s) override {
    return inner_->RunScript(script, timeout_s);
  }
  Device& Underlying() override { return inner_->Underlying(); }

 private:
  void RemoveCgroups();
  // Removes the tier cgroups on the device named for this host's controllers that are not alive.
  void SweepDeadControllers();

  std::unique_ptr<Device> inner_;
  env::Tier tier_;
  std::string name_;
  env::TierCgroups current_;                // the last worker's cgroups
  std::vector<env::TierCgroups> leftover_;  // earlier ones not removed yet (a worker still exiting)
  std::unique_ptr<env::ProcessTable> processes_;
  env::ProcessIdentity self_;  // this controller
  std::string host_tag_;       // env::TierHostTag of this host and boot: whose cgroups are whose
  int started_ = 0;
};

}  // namespace pipette::device
