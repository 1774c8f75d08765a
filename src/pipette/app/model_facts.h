// Facts about a model file that every cell records: SHA-256, size, and what its GGUF header says.
#pragma once

#include <string>

#include "pipette/run/runner.h"
#include "pipette/util/result.h"

namespace pipette::app {

Result<run::ModelFacts> ModelFactsOf(const std::string& path);

}  // namespace pipette::app
