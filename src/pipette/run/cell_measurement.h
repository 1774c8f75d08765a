// One visit of one cell: its worker made ready (started, its model loaded where it holds
// another, a fresh context), then the phases of its workloads, each announced to the progress
// sink. The first visit runs every workload and the memory reading, storing the load and context
// samples and an `na` sample for each phase its runtime does not serve; a later visit of an
// interleaved cell (--interleave) runs the next repetition of the workloads that interleave. Both
// go through the same steps (Measure), so a revisit measures as a first visit does.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipette/config/experiment.h"
#include "pipette/device/device.h"
#include "pipette/estimate/estimator.h"
#include "pipette/plan/plan.h"
#include "pipette/run/device_session.h"
#include "pipette/run/progress.h"
#include "pipette/run/tokenizer_reference.h"
#include "pipette/run/worker_session.h"
#include "pipette/runtime/params.h"
#include "pipette/store/store.h"
#include "pipette/workload/workload.h"

namespace pipette::run {

// The run's parts a cell's measurement uses, held by the run loop (run/runner.cc).
struct MeasureParts {
  const config::Experiment& ex;
  const std::vector<plan::Cell>& cells;
  const runtime::ParamRegistry& registry;
  store::Store& store;
  ProgressSink* progress = nullptr;
  device::Device& local;  // this machine: the helpers (kld reference, chat renderer) run here
  const std::atomic<bool>* stop = nullptr;
  estimate::Estimator& eta;
  WorkerSession& worker;
  DeviceSession& devices;
  std::vector<std::unique_ptr<workload::Workload>>& workloads;
  TokenizerReference& tokenizer_reference;
  std::function<void()> after_phase;  // the run loop's look for other Pipettes
};

// Stores one raw sample of the cell `rec`; a store error fails the cell.
workload::RunStatus KeepSample(store::Store& store, const store::CellRecord& rec,
                               const std::string& test, int rep, bool warmup, nlohmann::json raw);

// Visit `visit` of `cell` (rec: its record, updated with the worker and the parameters that ran
// at the first visit). The cell's device is the parts' current one (DeviceSession::Enter).
workload::RunStatus Measure(MeasureParts& parts, const plan::Cell& cell, store::CellRecord& rec,
                            workload::Visit visit);

}  // namespace pipette::run
