// What every command that measures does first: open the store to write (marking runs whose
// controller is gone as abandoned), and take the machine-wide measuring lock.
#pragma once

#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "pipette/env/process.h"
#include "pipette/run/measure_lock.h"
#include "pipette/store/store.h"
#include "pipette/util/result.h"

namespace pipette::app {

// Opens (or creates) the store to write, migrating an older one, and marks its abandoned runs,
// saying which on standard error.
Result<std::unique_ptr<store::Store>> OpenStoreForWriting(const std::string& path,
                                                          const env::ProcessTable& processes);

struct LockArgs {
  bool no_wait = false;
  double wait_s = 1800;
};
// Takes the measuring lock for `command` on `store_path`, printing while it waits.
Result<std::unique_ptr<run::MeasureLock>> TakeMeasureLock(const LockArgs& args,
                                                          const std::string& command,
                                                          const std::string& store_path,
                                                          const env::ProcessTable& processes,
                                                          const std::atomic<bool>* stop);

// The Pipette workers running on this machine that are not those of this controller (pid
// `self`): [{pid, program}].
nlohmann::json OtherPipetteWorkers(const env::ProcessTable& processes, int self);

}  // namespace pipette::app
