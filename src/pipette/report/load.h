#pragma once

#include <cstdint>
#include <vector>

#include "pipette/env/process.h"
#include "pipette/report/data.h"
#include "pipette/store/store.h"

namespace pipette::report {

// Reads runs, their cells and raw samples from the store and derives every row. With
// `processes`, a run stored as running shows whether it still is (store::LiveStatus), and the
// running cells of an abandoned run show as abandoned; nothing is written.
Result<ReportData> LoadReportData(store::Store& store, const std::vector<int64_t>& run_ids,
                                  const env::ProcessTable* processes = nullptr);

}  // namespace pipette::report
