#pragma once

#include <cstdint>
#include <vector>

#include "pipette/report/reporter.h"
#include "pipette/store/store.h"

namespace pipette::report {

// Reads runs, their cells and raw samples from the store and derives every row.
Result<ReportData> LoadReportData(store::Store& store, const std::vector<int64_t>& run_ids);

}  // namespace pipette::report
