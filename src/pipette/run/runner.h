// The scheduler: runs every cell of a plan through workers, storing each raw sample as it
// arrives. A failing cell is recorded with its reason and never stops the others.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipette/config/experiment.h"
#include "pipette/device/device.h"
#include "pipette/http/client.h"
#include "pipette/metrics/derive.h"
#include "pipette/model/format.h"
#include "pipette/plan/plan.h"
#include "pipette/run/device_session.h"
#include "pipette/run/progress.h"
#include "pipette/run/readiness.h"
#include "pipette/run/resume.h"
#include "pipette/runtime/params.h"
#include "pipette/runtime/registry.h"
#include "pipette/store/store.h"
#include "pipette/util/result.h"
#include "pipette/worker/channel.h"
#include "pipette/workload/workload.h"

namespace pipette::run {

// Facts about a model file, measured once per file per run by its format (model/format.h).
using ModelFacts = model::ModelFacts;

struct RunnerDeps {
  // The workloads a cell runs, in order: a fresh instance of each for the run
  // (workload::MakeWorkloads from app/). Unset: the run is refused.
  std::function<std::vector<std::unique_ptr<workload::Workload>>()> workloads;
  // The runtimes the cells name (runtime::Registry() from app/): what each says of the ops it
  // does not serve. nullptr: a phase it does not serve gets the generic reason.
  const runtime::RuntimeRegistry* runtimes = nullptr;
  // What derives a finished cell's rows, stored for the reports (workload::Derivers() from
  // app/: the workloads' derivations and the cell facts'). Unset: the run is refused.
  const metrics::RowDerivers* derivers = nullptr;
  // This machine: the workers of its cells run here, and so do the helpers every cell shares
  // (the kld reference, the chat-template renderer) whatever device the cell is on.
  device::Device* device = nullptr;
  // The experiment's other devices, opened when their first cell runs (the connection made, the
  // fingerprint stored); an error fails that device's cells, and the run goes on. Unset: every
  // cell runs on `device`.
  std::function<Result<OpenDevice>(const config::DeviceSpec&)> open_device;
  // The worker program of `runtime` for `device` (built for its architecture); unset: the
  // runtime's own.
  std::function<Result<std::string>(const config::RuntimeSpec& runtime, device::Device& device)>
      worker_for;
  // How endpoint runtimes are spoken to (endpoint/channel.h); nullptr: the real HTTP client.
  http::HttpClient* http = nullptr;
  store::Store* store = nullptr;
  ProgressSink* progress = nullptr;
  // Readings at the start of each cell (load average, free memory).
  std::function<nlohmann::json()> conditions;
  std::function<Result<ModelFacts>(const std::string& path)> model_facts;
  // Set from a signal handler to stop after the current request.
  const std::atomic<bool>* stop = nullptr;
  // Other Pipette workers measuring on this machine now (not this controller's): a JSON array
  // of {pid, program}, read at the start and end of each cell.
  std::function<nlohmann::json()> other_pipettes;
  // Recorded with the run: the controller process (env::ProcessIdentity), the measuring lock,
  // and the --only filter that narrowed the plan.
  nlohmann::json controller = nlohmann::json::object();
  nlohmann::json lock = nlohmann::json::object();
  std::string only;
  // Continue this stored run instead of starting one: only resume->to_run is measured.
  const ResumePlan* resume = nullptr;
  // Told the run's id once it is in the store (the lock file names it for whoever waits).
  std::function<void(int64_t run_id)> run_started;
  // The readiness gate's look at a device (run/readiness.h), made once per device; unset: the
  // experiment's `ready:` and `cooldown: temperature` have nothing to look with.
  std::function<std::unique_ptr<ReadyProbe>(device::Device&)> ready_probe;
  ReadyClock clock = ReadyClock::Steady();
  // --strict: a device not ready by the deadline refuses the rest of the run instead of failing
  // the one cell.
  bool strict = false;
};

struct RunSummary {
  int64_t run_id = 0;
  int cells_ok = 0;  // measured now
  int cells_failed = 0;
  int cells_kept = 0;  // complete before a resume, not measured again
  bool interrupted = false;
  std::string status;  // what the run was finished as
  // Each failed cell's error (its message is the cell's stored error), in plan order; its
  // context names the cell (context.cell: plan::Cell::Key()) and, where a worker call failed,
  // the op.
  std::vector<Error> failures;
};

Result<RunSummary> RunExperiment(const config::Experiment& ex, const std::vector<plan::Cell>& cells,
                                 const runtime::ParamRegistry& registry, int64_t environment_id,
                                 RunnerDeps deps);

}  // namespace pipette::run
