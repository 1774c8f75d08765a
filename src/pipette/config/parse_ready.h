// `ready:` and `cooldown:` of an experiment file: pure parsing (docs/config.md "A clean device").
#pragma once

#include <yaml-cpp/yaml.h>

#include "pipette/config/ready_spec.h"
#include "pipette/config/yaml_helpers.h"
#include "pipette/util/result.h"

namespace pipette::config {

// `ready: true` (the defaults) or {cpu_busy: PERCENT, temperature: CELSIUS, window: SECONDS,
// deadline: SECONDS}, each optional.
Result<ReadySpec> ParseReady(const Where& w, const YAML::Node& node);

// `cooldown: SECONDS`, `cooldown: temperature`, or {seconds: SECONDS, until: temperature}.
Result<CooldownSpec> ParseCooldown(const Where& w, const YAML::Node& node);

}  // namespace pipette::config
