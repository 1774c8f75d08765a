// Facts about a model file that every cell records: SHA-256, size, and what its GGUF header says.
#pragma once

#include <atomic>
#include <string>

#include "pipette/run/runner.h"
#include "pipette/util/result.h"

namespace pipette::app {

Result<run::ModelFacts> ModelFactsOf(const std::string& path);

// What the runner needs to run cells on this machine: real workers, the store, conditions read
// at the start of each cell, ModelFactsOf, and the stop flag.
run::RunnerDeps LocalRunnerDeps(worker::WorkerLauncher* launcher, store::Store* store,
                                run::ProgressSink* progress, const std::atomic<bool>* stop);

}  // namespace pipette::app
