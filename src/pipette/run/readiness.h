// The readiness gate (docs/running.md "A clean device"): before every measured repetition, wait
// until the device is ready, i.e. other processes keep its CPUs busy less than a threshold over a
// short window and its hottest CPU zone is below a threshold where it has one, up to a deadline;
// and between cells, the cooldown. What was found is stored with each repetition. The device is
// looked at through a ReadyProbe (this machine's /proc and /sys, or another device's through its
// shell), the time through a ReadyClock, so the gate is tested without waiting.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "pipette/env/sensors.h"
#include "pipette/run/ready_section.h"
#include "pipette/util/result.h"

namespace pipette::run {

// The experiment's `ready:` and `cooldown:` (run/ready_section.h).
using ReadyLimits = ReadySpec;
using Cooldown = CooldownSpec;

// One look at the device.
struct ReadyLook {
  std::optional<double> cpu_busy;  // share of others' CPU time over the window; none: unreadable
  std::optional<double> temp_c;    // hottest CPU zone; none: the device exposes none
  std::string cpu_na, temp_na;     // why a reading is missing
  std::string sensors_root;        // "" : the device's own /sys; else the (fake) tree read
};

class ReadyProbe {
 public:
  virtual ~ReadyProbe() = default;
  // Looks for `window_s` seconds (the CPU share is over that window).
  virtual Result<ReadyLook> Look(double window_s) = 0;
  // The device's sensors now (env/sensors.h), read where the looks read: energy counters and
  // power around a measured repetition (energy per token). An error where it reads none.
  virtual Result<env::Sensors> ReadSensors() { return RuntimeError("this probe reads no sensors"); }
  // Where they were read: "" for the device's own /sys, else the (fake) tree.
  virtual std::string SensorsRoot() const { return ""; }
};

struct ReadyClock {
  std::function<double()> now_s;
  std::function<void(double)> sleep_s;
  static ReadyClock Steady();  // the real clock
};

// Ctrl-C: the gate and the cooldown stop waiting (checked between looks, and every second of a
// cooldown's sleep); nullptr: never.
using StopFlag = std::function<bool()>;

// What the gate found before a repetition (stored with it as `ready`).
struct ReadyFound {
  bool ready = false;
  double waited_s = 0;
  int looks = 0;
  ReadyLook last;
  std::string reason;  // why not ready, as of the last look ("" when ready)
  nlohmann::json ToJson() const;
};

// Why `look` is not ready under `limits`, or "" when it is.
std::string NotReadyReason(const ReadyLimits& limits, const ReadyLook& look);

// Looks until the device is ready or the deadline passes (then `ready` is false, with the
// reason), or `stopped` says so (then `ready` is false, reason "interrupted"). An unreadable CPU
// share does not gate (its reason is kept); a probe that fails is an error.
Result<ReadyFound> WaitUntilReady(const ReadyLimits& limits, ReadyProbe& probe,
                                  const ReadyClock& clock, const StopFlag& stopped = {});

// What a cooldown did (stored with the next cell's first repetition as `cooldown`).
struct CooledDown {
  double waited_s = 0;
  std::optional<double> temp_c;        // at its end
  std::optional<double> start_temp_c;  // the run's starting temperature, when it waited for it
  bool reached = true;                 // false: the deadline passed first
  std::string note;                    // why it could not wait for the temperature
  nlohmann::json ToJson() const;
};
Result<CooledDown> CoolDown(const Cooldown& cooldown, std::optional<double> start_temp_c,
                            const ReadyLimits& limits, ReadyProbe& probe, const ReadyClock& clock,
                            const StopFlag& stopped = {});

}  // namespace pipette::run
