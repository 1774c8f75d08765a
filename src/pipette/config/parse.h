// Parsing an experiment: its text (and the file's name, for messages) to the experiment as
// written (config/written.h). Pure: no file is read, nothing is hashed, nothing of this machine
// is asked. Every error names file:line:column and the problem, suggests the nearest known key,
// and carries exit code 2.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "pipette/config/spec_def.h"
#include "pipette/config/written.h"
#include "pipette/runtime/params.h"
#include "pipette/runtime/registry.h"
#include "pipette/util/result.h"

namespace pipette::config {

// Parses an experiment file's text; `path` names it in messages. `registry` holds the parameters
// it may set (runtimes.Params() outside tests), `specs` what its owners define of it: the quality
// workloads it may name, the top-level sections, the grammar of its tests and the device kinds
// (app::ExperimentSpecs() outside tests), `runtimes` the runtimes it may name.
Result<WrittenExperiment> ParseExperiment(const std::string& text, const std::string& path,
                                          const runtime::ParamRegistry& registry,
                                          const SpecRegistry& specs,
                                          const runtime::RuntimeRegistry& runtimes);

}  // namespace pipette::config
