// The tables that follow a figure as something grows (docs/running.md "Curves"): the context
// growth table (tg and memory against the context's depth) and the sustained table (each 10 s
// window of a sustained<T> run: t/s, temperature, frequency, power). Built from the derived rows
// only (their samples hold the windows in order); a table with nothing to show is left out.
#pragma once

#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/metrics/figures.h"
#include "pipette/report/table.h"

namespace pipette::report {

// One line per cell and tg test, of every group of cells that differ only in their depth (with two
// depths at least): depth, t/s, kv_bytes_used, the cell's kv_bytes_allocated, bw_util and peak
// RSS. Empty (no rows) when no group has two depths.
Table ContextGrowthTable(const std::vector<metrics::ResultRow>& rows,
                         const metrics::FigureCatalogue& figures);

// One line per window of each cell's sustained<T> run; footnotes: each run's decay, flagged past
// 30% (metrics::kDecayFlag).
Table SustainedTable(const std::vector<metrics::ResultRow>& rows,
                     const metrics::FigureCatalogue& figures);

}  // namespace pipette::report
