#include "pipette/device/tiered_device.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>

namespace pipette::device {

TieredDevice::~TieredDevice() {
  if (!current_.empty()) leftover_.push_back(std::move(current_));
  RemoveCgroups();
}

void TieredDevice::RemoveCgroups() {
  std::vector<env::TierCgroups> kept;
  for (const env::TierCgroups& c : leftover_) {
    // Removed once its worker has exited; a cgroup still busy is tried again at the next start.
    if (!inner_->RunScript(env::TierRemoveScript(c), 30)) kept.push_back(c);
  }
  leftover_ = std::move(kept);
}

Result<std::unique_ptr<worker::WorkerChannel>> TieredDevice::StartWorkerAfter(
    const std::string& prelude, const std::vector<std::string>& argv) {
  if (!current_.empty()) leftover_.push_back(std::move(current_));
  current_.clear();
  RemoveCgroups();
  // Unique on the device whoever else runs tiers there: this controller's pid and clock.
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const std::string name =
      fmt::format("pipette-{}-{}-{}", ::getpid(),
                  std::chrono::duration_cast<std::chrono::milliseconds>(now).count(), ++started_);
  auto made = inner_->RunScript(env::TierCreateScript(tier_, name), 60);
  if (!made) {
    return RuntimeError(fmt::format("device {}: cannot apply its tier ({}): {}", name_,
                                    tier_.Label(), made.error().message));
  }
  auto cgroups = env::ParseTierCgroups(*made);
  if (!cgroups) return cgroups.error();
  current_ = *cgroups;
  const std::string join = env::TierJoinPrelude(current_);
  return inner_->StartWorkerAfter(prelude.empty() ? join : join + "\n" + prelude, argv);
}

Result<nlohmann::json> TieredDevice::TierReading(int64_t pid, bool reset_peak) {
  if (current_.empty()) return RuntimeError("no worker was started in the tier's cgroups");
  auto printed = inner_->RunScript(env::TierReadScript(current_, pid, reset_peak), 30);
  if (!printed) return printed.error();
  nlohmann::json reading = env::ParseTierReading(*printed);
  return reading;
}

}  // namespace pipette::device
