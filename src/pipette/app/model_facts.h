// Facts about a model file that every cell records, measured by its format (model_formats/): its
// cache key (SHA-256), size, and what the file says.
#pragma once

#include <atomic>
#include <string>

#include "pipette/env/process.h"
#include "pipette/run/runner.h"
#include "pipette/util/result.h"

namespace pipette::app {

Result<run::ModelFacts> ModelFactsOf(const std::string& path);

// What the runner needs to run cells on this machine: real workers, the store, conditions read
// at the start of each cell, ModelFactsOf, the stop flag, this controller's identity and a look
// for other Pipette workers measuring at the same time.
run::RunnerDeps LocalRunnerDeps(device::Device* device, store::Store* store,
                                run::ProgressSink* progress, const std::atomic<bool>* stop,
                                const env::ProcessTable* processes);

}  // namespace pipette::app
