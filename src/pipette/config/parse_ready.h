// `cooldown:` of an experiment file: pure parsing (docs/config.md "A clean device"). `ready:` is
// the runner's section (run/ready_section.h).
#pragma once

#include <yaml-cpp/yaml.h>

#include "pipette/config/ready_spec.h"
#include "pipette/config/yaml_helpers.h"
#include "pipette/util/result.h"

namespace pipette::config {

// `cooldown: SECONDS`, `cooldown: temperature`, or {seconds: SECONDS, until: temperature}.
Result<CooldownSpec> ParseCooldown(const Where& w, const YAML::Node& node);

}  // namespace pipette::config
