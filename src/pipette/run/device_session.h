// The devices of a run as the runner holds them: this machine and the others, each opened at its
// first cell (a device that cannot be opened, or whose link dropped, fails its later cells at
// once); the readiness gate and the cooldown between cells; energy around a measured repetition;
// a tier's readings of the cell's worker (its throttling, its memory peak, an OOM kill). One job:
// the device side of a cell. The worker side is run/worker_session.h.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "pipette/config/experiment.h"
#include "pipette/device/device.h"
#include "pipette/env/sensors.h"
#include "pipette/plan/plan.h"
#include "pipette/run/readiness.h"
#include "pipette/util/result.h"
#include "pipette/workload/context.h"

namespace pipette::run {

// A device other than this machine, opened for the run: the device and its environment in the
// store (its fingerprint, which the cells measured there point at).
struct OpenDevice {
  device::Device* device = nullptr;
  int64_t environment_id = 0;
};

// What the device side needs from whoever runs the experiment (run::RunnerDeps's fields).
struct DeviceSessionDeps {
  device::Device* local = nullptr;  // this machine
  std::function<Result<OpenDevice>(const config::DeviceSpec&)> open_device;
  std::function<std::unique_ptr<ReadyProbe>(device::Device&)> ready_probe;
  ReadyClock clock = ReadyClock::Steady();
  bool strict = false;
  const std::atomic<bool>* stop = nullptr;
};

class DeviceSession {
 public:
  DeviceSession(const config::Experiment& ex, DeviceSessionDeps deps, int64_t environment_id)
      : ex_(ex), deps_(std::move(deps)), environment_id_(environment_id) {}

  // Makes `cell`'s device the current one: this machine, or another opened once. An error when
  // it cannot run cells (then there is no current device).
  Result<OpenDevice> Enter(const plan::Cell& cell);
  device::Device* Current() const { return dev_; }

  // After a cell on another device failed: a link that no longer answers is the reason, said
  // first in `error`, and the device's later cells fail at once instead of each waiting for it.
  void NoteLinkDropped(const plan::Cell& cell, std::string& error);

  // Before a cell, before its conditions are read: the first on its device notes the
  // temperature there (for `cooldown: temperature`); a later one cools down first. What it did,
  // for the cell's conditions ({} when the experiment has no cooldown).
  nlohmann::json CoolDownBefore();
  // The gate before a measured repetition: null without `ready:`; not ready by the deadline
  // fails the cell (with --strict, the run too: StrictRefusal).
  Result<nlohmann::json, workload::RunError> Ready();
  // Why the gate failed the current cell ("" when it did not), cleared by the call; and, with
  // --strict, why the run stops after it.
  std::string TakeNotReady();
  const std::string& StrictRefusal() const { return strict_refusal_; }

  // Energy around a measured repetition (workload::Context::EnergyMark): the device's sensors
  // read through its probe; a device found without an energy source is not read again, one whose
  // reading failed is tried again at the next repetition.
  std::optional<env::Sensors> EnergyMark();
  nlohmann::json EnergySince(const std::optional<env::Sensors>& mark, double seconds);
  // The readiness gate's probe of the current device, made once; nullptr without one.
  ReadyProbe* Probe();

  // A tier's readings of the worker `pid` at the cell's (or a visit's) start; `reset`: its
  // memory peak starts again. An error only when `reset` was asked and the reading failed.
  Status StartTier(int64_t pid, bool reset);
  // Forgets the start (a cell on no tier, or one not started yet).
  void ClearTier() { tier_start_ = nlohmann::json(); }
  // The start's readings; null: none.
  const nlohmann::json& TierStart() const { return tier_start_; }
  // The readings now (an {"na": why} object where they failed); null without a start.
  nlohmann::json TierEnd();
  // `end` where it says the kernel killed the worker for its tier's memory cap, else null.
  nlohmann::json OomEnd(const nlohmann::json& end) const;
  // A failure's message when the worker was killed so (`end` from OomEnd).
  static std::string OomError(const nlohmann::json& end, const std::string& failure);

 private:
  bool Stopped() const { return deps_.stop && deps_.stop->load(); }

  const config::Experiment& ex_;
  DeviceSessionDeps deps_;
  int64_t environment_id_ = 0;
  device::Device* dev_ = nullptr;             // the current cell's device
  std::map<std::string, OpenDevice> opened_;  // other devices, by name, once opened
  std::map<std::string, std::string> down_;   // devices not answering, by name: why
  nlohmann::json tier_start_;                 // a tier's readings at the start; null: none
  int64_t tier_pid_ = 0;                      // the worker they are of (its pid there)
  // The readiness gate (run/readiness.h): each device's probe, the temperature it had at its
  // first cell (what `cooldown: temperature` waits for), and whether a cell ran there yet.
  std::map<device::Device*, std::unique_ptr<ReadyProbe>> probes_;
  std::map<device::Device*, std::optional<double>> start_temp_;
  std::set<device::Device*> cells_begun_;
  // Devices found without an energy source: why (energy per token is n/a there).
  std::map<device::Device*, std::string> no_energy_;
  std::string energy_read_error_;  // the current repetition's first reading failed: why
  std::string strict_refusal_;     // --strict: why the run stops after this cell
  std::string not_ready_;          // why the readiness gate failed the current cell, if it did
};

}  // namespace pipette::run
