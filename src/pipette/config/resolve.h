// Resolving an experiment as written (config/parse.h) on this machine: models and datasets are
// found and read (GGUF headers, dataset items), base models and corpora hashed, defaults applied
// and values derived from the machine's facts (options.machine). The result is what the plan
// and the runner use; what was written stays in it (Experiment::written) for the hash.
#pragma once

#include "pipette/config/experiment.h"
#include "pipette/config/resolve_options.h"
#include "pipette/config/written.h"
#include "pipette/runtime/params.h"
#include "pipette/util/result.h"

namespace pipette::config {

// Errors name file:line:column of what they are about and carry exit code 2.
Result<Experiment> Resolve(const WrittenExperiment& written, const runtime::ParamRegistry& registry,
                           const ResolveOptions& options);

}  // namespace pipette::config
