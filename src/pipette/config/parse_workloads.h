// Parsing the quality: workloads and the quantize: entries of an experiment (part of
// config/parse.h, pure as it is).
#pragma once

#include <yaml-cpp/yaml.h>

#include <vector>

#include "pipette/config/spec_def.h"
#include "pipette/config/written.h"
#include "pipette/config/yaml_helpers.h"
#include "pipette/util/result.h"

namespace pipette::config {

// quality: into `ex`: each workload's entry parsed by its def in `qualities`, kept in the
// registry's order.
Status ParseQuality(const Where& w, const YAML::Node& node, const SpecRegistry& qualities,
                    WrittenExperiment* ex);

// quantize: one entry or a list of them.
Result<std::vector<WrittenQuantize>> ParseQuantize(const Where& w, const YAML::Node& node);

}  // namespace pipette::config
