// `pipette run --resume RUN`: reading the run to resume, and every check that it can be resumed
// as it stands (the same experiment, datasets, model files, device and build), before anything
// is measured. The plan itself is run::PlanResume.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "pipette/config/experiment.h"
#include "pipette/device/device.h"
#include "pipette/env/process.h"
#include "pipette/plan/plan.h"
#include "pipette/run/resume.h"
#include "pipette/store/store.h"
#include "pipette/util/result.h"

namespace pipette::app {

struct RunToResume {
  store::RunRecord run;  // its status as it is now (store::LiveStatus)
  std::vector<store::CellRecord> cells;
};
Result<RunToResume> ReadRunToResume(store::Store& store, int64_t run_id,
                                    const env::ProcessTable& processes);

// The experiment given now is the one the run ran: the same config_hash (what the file writes),
// resolved to the same files and values here (the machine-derived values aside: the device is
// checked on its own). Otherwise an input error says what differs. A run recorded before
// config_hash covered only what the file writes (its hash is that of its resolved experiment)
// is refused, saying so: it was measured by another build, which alone may resume it.
Status CheckSameExperiment(const store::RunRecord& run, const config::Experiment& ex,
                           const runtime::ParamRegistry& registry);

// The run must not be running, the experiment must be the one it ran (CheckSameExperiment, its
// number of cells), the datasets the ones it measured with; then the plan and the references
// its kept cells recorded.
Result<run::ResumePlan> PlanResumeOf(store::Store& store, const RunToResume& r,
                                     const config::Experiment& ex,
                                     const runtime::ParamRegistry& registry,
                                     const std::vector<plan::Cell>& cells, bool retry_failed);

// Once the variants exist: the model files of the cells to measure are those the run measured,
// and the runtime build (asked of the worker) and Pipette's own build are those of its kept cells.
Status CheckSameFilesAndBuild(const RunToResume& r, const std::vector<plan::Cell>& cells,
                              const run::ResumePlan& plan, device::Device& device);

// The environment each of the run's other devices had when it measured their cells, by device
// name (facts.device.name of a cell's own environment).
Result<std::map<std::string, store::EnvironmentRecord>> DeviceEnvironmentsOf(store::Store& store,
                                                                             const RunToResume& r);

// A device opened to resume run `run_id` is the one that measured its earlier cells there: its
// fingerprint now (`now`, its facts) is the one recorded then; else an error naming both, and
// the device's cells are not measured.
Status CheckSameDevice(const std::string& name, int64_t run_id,
                       const store::EnvironmentRecord& then, const nlohmann::json& now);

// For --dry-run: which cells are kept and which are measured again.
void PrintResumePlan(const store::RunRecord& run, const std::vector<plan::Cell>& cells,
                     const run::ResumePlan& plan);

}  // namespace pipette::app
