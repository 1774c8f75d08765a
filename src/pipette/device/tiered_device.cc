#include "pipette/device/tiered_device.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>

namespace pipette::device {
TieredDevice::TieredDevice(std::unique_ptr<Device> inner, env::Tier tier, std::string name,
                           std::unique_ptr<env::ProcessTable> processes)
    : inner_(std::move(inner)),
      tier_(std::move(tier)),
      name_(std::move(name)),
      processes_(processes ? std::move(processes) : std::make_unique<env::LinuxProcessTable>()),
      self_(processes_->Self()),
      host_tag_(env::TierHostTag(self_)) {}

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

void TieredDevice::SweepDeadControllers() {
  auto listed = inner_->RunScript(env::TierListScript(), 30);
  if (!listed) return;  // the create script says what is wrong with the device's cgroups
  std::vector<std::string> stale;
  for (const std::string& folder : env::ParseTierList(*listed)) {
    auto owner = env::TierCgroupOwner(folder);
    // Only this host's: another host's controller may be alive, and its pids mean nothing here.
    // Its controller is gone when it ran in an earlier boot, when no process has its pid, or when
    // one started at another time has it (the pid used again); a process whose start time cannot
    // be read is left alone.
    if (!owner || owner->host_tag.substr(0, 8) != host_tag_.substr(0, 8)) continue;
    bool gone = owner->host_tag != host_tag_;  // this host's earlier boot
    if (!gone) {
      if (owner->pid == self_.pid && uint64_t(owner->start_ticks) == self_.start_ticks) continue;
      const int pid = int(owner->pid);
      const auto start = processes_->StartTicks(pid);
      // A start time of 0 is one that could not be read: not a judge of anything.
      if (owner->start_ticks == 0 || (start && *start == 0)) continue;
      gone = start ? *start != uint64_t(owner->start_ticks) : !processes_->Exists(pid);
    }
    if (gone) stale.push_back(folder);
  }
  // A cgroup whose worker outlived its controller stays until that worker ends.
  if (!stale.empty()) (void)inner_->RunScript(env::TierRemoveScript(stale), 30);
}

Result<std::unique_ptr<worker::WorkerChannel>> TieredDevice::StartWorkerAfter(
    const std::string& prelude, const std::vector<std::string>& argv) {
  if (started_ == 0) SweepDeadControllers();
  if (!current_.empty()) leftover_.push_back(std::move(current_));
  current_.clear();
  RemoveCgroups();
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const std::string name = env::TierCgroupName(
      host_tag_, self_.pid, int64_t(self_.start_ticks),
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
