#pragma once

#include <cstdint>
#include <vector>

#include "pipette/env/process.h"
#include "pipette/metrics/derive.h"
#include "pipette/report/data.h"
#include "pipette/store/store.h"

namespace pipette::report {

struct LoadOptions {
  // Use the rows `pipette run` stored for finished cells (metrics/row_cache.h) where they are
  // current; false derives every row from the raw samples (`pipette report --no-cache`, tests).
  bool derived_cache = true;
};

// Reads runs, their cells and raw samples from the store and derives every row with `derivers`
// (the workloads: workload::Derivers(), from app/), or takes a cell's current cached rows, which
// are the same. With `processes`, a run stored as running
// shows whether it still is (store::LiveStatus), and the running cells of an abandoned run show
// as abandoned; nothing is written.
Result<ReportData> LoadReportData(store::Store& store, const std::vector<int64_t>& run_ids,
                                  const metrics::RowDerivers& derivers,
                                  const env::ProcessTable* processes = nullptr,
                                  LoadOptions options = {});

}  // namespace pipette::report
