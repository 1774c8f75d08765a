#include "pipette/run/device_session.h"

#include <fmt/format.h>

#include <chrono>

#include "pipette/env/cgroup_tier.h"
#include "pipette/util/strings.h"

namespace pipette::run {

using nlohmann::json;
using workload::Failed;
using workload::RunError;

namespace {

// A probe that sees nothing (no device to look at): cooldowns by time alone.
struct NullProbe : ReadyProbe {
  Result<ReadyLook> Look(double) override { return ReadyLook{}; }
};

}  // namespace

Result<OpenDevice> DeviceSession::Enter(const plan::Cell& cell) {
  dev_ = nullptr;
  if (cell.device.IsLocal() || !deps_.open_device) {
    dev_ = deps_.local;
    return OpenDevice{deps_.local, environment_id_};
  }
  const std::string& name = cell.device.name;
  if (auto it = down_.find(name); it != down_.end()) return RuntimeError(it->second);
  if (auto it = opened_.find(name); it != opened_.end()) {
    dev_ = it->second.device;
    return it->second;
  }
  auto opened = deps_.open_device(cell.device);
  if (!opened) {
    down_[name] = fmt::format("device '{}' ({}) cannot run cells: {}", name, cell.device.Address(),
                              opened.error().message);
    return RuntimeError(down_[name]);
  }
  opened_[name] = *opened;
  dev_ = opened->device;
  return *opened;
}

void DeviceSession::NoteLinkDropped(const plan::Cell& cell, std::string& error) {
  if (cell.device.IsLocal() || !dev_ || down_.count(cell.device.name)) return;
  auto link = dev_->CheckLink();
  if (link) return;
  error = fmt::format("link to device '{}' dropped: {} (the cell failed with: {})",
                      cell.device.name, link.error().message, error);
  down_[cell.device.name] =
      fmt::format("link to device '{}' dropped during cell {} ({}): {}", cell.device.name,
                  cell.index + 1, cell.label, link.error().message);
}

ReadyProbe* DeviceSession::Probe() {
  if (!dev_ || !deps_.ready_probe) return nullptr;
  auto& probe = probes_[dev_];
  if (!probe) probe = deps_.ready_probe(*dev_);
  return probe.get();
}

json DeviceSession::CoolDownBefore() {
  const CooldownSpec c = CooldownOf(ex_);
  if (c.seconds <= 0 && !c.until_start_temperature) return json::object();
  ReadyProbe* probe = Probe();
  const ReadySpec* ready = ReadyOf(ex_);
  const ReadySpec limits = ready ? *ready : ReadySpec{};
  if (!cells_begun_.count(dev_)) {
    cells_begun_.insert(dev_);
    if (!c.until_start_temperature || !probe) return json::object();
    auto look = probe->Look(limits.window_s);
    if (!look) return {{"cooldown", {{"error", look.error().message}}}};
    start_temp_[dev_] = look->temp_c;
    return {{"start_temp_c", look->temp_c ? json(*look->temp_c) : json(nullptr)}};
  }
  CooldownSpec spec = c;
  if (!probe) spec.until_start_temperature = false;  // nothing to look with: by time alone
  NullProbe none;
  auto done = CoolDown(spec, start_temp_[dev_], limits, probe ? *probe : none, deps_.clock,
                       [this] { return Stopped(); });
  if (!done) return {{"cooldown", {{"error", done.error().message}}}};
  return {{"cooldown", done->ToJson()}};
}

Result<json, RunError> DeviceSession::Ready() {
  const ReadySpec* ready = ReadyOf(ex_);
  if (!ready) return json(nullptr);
  ReadyProbe* probe = Probe();
  if (!probe) return json(nullptr);
  auto found = WaitUntilReady(*ready, *probe, deps_.clock, [this] { return Stopped(); });
  if (!found)
    return Failed("the readiness gate could not look at the device: " + found.error().message);
  if (Stopped()) return Failed("interrupted");
  if (!found->ready) {
    if (deps_.strict) strict_refusal_ = found->reason;
    not_ready_ = found->reason;
    return Failed(found->reason);
  }
  return found->ToJson();
}

std::string DeviceSession::TakeNotReady() {
  std::string why = std::move(not_ready_);
  not_ready_.clear();
  return why;
}

std::optional<env::Sensors> DeviceSession::EnergyMark() {
  ReadyProbe* probe = Probe();
  if (!probe) return std::nullopt;
  energy_read_error_.clear();
  std::string& none = no_energy_[dev_];
  if (!none.empty()) return std::nullopt;
  auto sensors = probe->ReadSensors();
  if (!sensors) {
    energy_read_error_ = "reading the sensors before the repetition: " + sensors.error().message;
    return std::nullopt;
  }
  if (!env::HasEnergySource(*sensors)) {
    none = env::EnergyFacts(*sensors, *sensors, 0).value("na", std::string("no energy source"));
    return std::nullopt;
  }
  return std::move(*sensors);
}

json DeviceSession::EnergySince(const std::optional<env::Sensors>& mark, double seconds) {
  ReadyProbe* probe = Probe();
  if (!probe) return nullptr;
  json energy;
  if (!mark) {
    auto none = no_energy_.find(dev_);
    if (!energy_read_error_.empty()) {
      energy = {{"na", energy_read_error_}};
    } else if (none == no_energy_.end() || none->second.empty()) {
      return nullptr;
    } else {
      energy = {{"na", none->second}};
    }
  } else {
    // The counters are read last: the span is from the first reading's end to the second's.
    const auto t0 = std::chrono::steady_clock::now();
    auto after = probe->ReadSensors();
    const double read_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    energy =
        after ? env::EnergyFacts(*mark, *after, seconds + read_s)
              : json{{"na", "reading the sensors after the repetition: " + after.error().message}};
  }
  if (!probe->SensorsRoot().empty()) energy["sensors_root"] = probe->SensorsRoot();
  return energy;
}

Status DeviceSession::StartTier(int64_t pid, bool reset) {
  tier_start_ = json();
  if (!dev_) return {};
  auto tier = dev_->TierReading(pid, reset);
  if (!tier) {
    if (reset) return RuntimeError("reading the tier's cgroups: " + tier.error().message);
    return {};
  }
  tier_start_ = std::move(*tier);
  tier_pid_ = pid;
  return {};
}

json DeviceSession::TierEnd() {
  if (tier_start_.is_null() || !dev_) return json();
  auto end = dev_->TierReading(tier_pid_, false);
  return end ? *end : json{{"na", end.error().message}};
}

json DeviceSession::OomEnd(const json& end) const {
  if (tier_start_.is_null() || end.is_null()) return json();
  return env::OomKilled(tier_start_, end) ? end : json();
}

std::string DeviceSession::OomError(const json& end, const std::string& failure) {
  auto bytes = [](std::optional<int64_t> n) {
    return n ? FormatBytes(double(*n)) : std::string("?");
  };
  return fmt::format(
      "over its tier's memory cap of {}: the kernel killed the worker at a peak of {} "
      "(the worker's last word: {})",
      bytes(env::TierCapBytes(end)), bytes(env::TierPeakBytes(end)), failure);
}

}  // namespace pipette::run
