// `ready:` and `cooldown:` of an experiment file (docs/config.md "A clean device"): when a device
// is ready to measure on, and how long to let it cool between cells. Two sections of the
// experiment file the runner owns (config::SpecDef: parsed, hashed, resolved and stored by
// config/ through its def alone), registered in app/experiment_specs.cc; the runner reads them
// with ReadyOf and CooldownOf.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "pipette/config/experiment.h"
#include "pipette/config/spec_def.h"
#include "pipette/config/yaml_helpers.h"
#include "pipette/util/result.h"

namespace pipette::run {

// As written (left-out keys at their defaults) and as the runner uses it (run/readiness.h).
struct ReadySpec {
  double cpu_busy_max = 0.10;        // share of all CPUs' time other processes may take
  std::optional<double> temp_max_c;  // the hottest CPU zone; none: temperature does not gate
  double window_s = 1;               // how long each look at the CPUs lasts
  double deadline_s = 600;           // how long to wait before giving up on a repetition

  // As the canonical form and the stored experiment write it.
  nlohmann::json ToJson() const {
    // The percent as written (7, not 7.000000000000001).
    const double pct = std::round(cpu_busy_max * 100 * 1e9) / 1e9;
    nlohmann::json out = {{"cpu_busy", pct}, {"window", window_s}, {"deadline", deadline_s}};
    if (temp_max_c) out["temperature"] = *temp_max_c;
    return out;
  }
  bool operator==(const ReadySpec&) const = default;
};

struct CooldownSpec {
  double seconds = 0;                    // sleep this long between cells
  bool until_start_temperature = false;  // then wait until the CPU is as cool as at the start

  nlohmann::json ToJson() const {
    if (until_start_temperature && seconds > 0) {
      return {{"seconds", seconds}, {"until", "temperature"}};
    }
    if (until_start_temperature) return "temperature";
    return seconds;
  }
  bool operator==(const CooldownSpec&) const = default;
};

// `ready: true` (the defaults) or {cpu_busy: PERCENT, temperature: CELSIUS, window: SECONDS,
// deadline: SECONDS}, each optional.
Result<ReadySpec> ParseReady(const config::Where& w, const YAML::Node& node);
// `cooldown: SECONDS`, `cooldown: temperature`, or {seconds: SECONDS, until: temperature}.
Result<CooldownSpec> ParseCooldown(const config::Where& w, const YAML::Node& node);

// The sections' defs.
const config::SpecDef& ReadySectionDef();
const config::SpecDef& CooldownSectionDef();

// The experiment's `ready:`; null when it writes none (nothing gates).
const ReadySpec* ReadyOf(const config::Experiment& ex);
// The experiment's `cooldown:`; none written: no cooldown.
CooldownSpec CooldownOf(const config::Experiment& ex);
// For tests: `ex` with `ready:` (`cooldown:`) as `spec`.
void SetReady(config::Experiment* ex, const ReadySpec& spec);
void SetCooldown(config::Experiment* ex, const CooldownSpec& spec);

}  // namespace pipette::run
