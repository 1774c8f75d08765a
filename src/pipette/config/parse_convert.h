// Parsing the convert: entries of an experiment (part of config/parse.h, pure as it is): a GGUF
// converted to ONNX variants (convert/conversion.h).
#pragma once

#include <yaml-cpp/yaml.h>

#include <vector>

#include "pipette/config/written.h"
#include "pipette/config/yaml_helpers.h"
#include "pipette/util/result.h"

namespace pipette::config {

// convert: one entry or a list of them.
Result<std::vector<WrittenConvert>> ParseConvert(const Where& w, const YAML::Node& node);

}  // namespace pipette::config
