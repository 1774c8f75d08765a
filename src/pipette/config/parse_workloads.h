// Parsing the quality: workloads and the quantize: entries of an experiment (part of
// config/parse.h, pure as it is).
#pragma once

#include <yaml-cpp/yaml.h>

#include <vector>

#include "pipette/config/written.h"
#include "pipette/config/yaml_helpers.h"
#include "pipette/util/result.h"

namespace pipette::config {

// quality: (ppl, kld, mc, gen, divergence) into `ex`.
Status ParseQuality(const Where& w, const YAML::Node& node, WrittenExperiment* ex);

// quantize: one entry or a list of them.
Result<std::vector<WrittenQuantize>> ParseQuantize(const Where& w, const YAML::Node& node);

}  // namespace pipette::config
