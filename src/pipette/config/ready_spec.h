// `cooldown:` of an experiment file (docs/config.md "A clean device"): how long to let a device
// cool between cells. A plain value: as written and as the runner uses it (run/readiness.h).
// `ready:` is the runner's section (run/ready_section.h).
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

namespace pipette::config {

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

}  // namespace pipette::config
