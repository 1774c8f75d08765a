// The console table (`pipette report`, the end of `pipette run`), in the spirit of llama-bench:
// one line per cell and speed test, with the cell's quality figures and peak memory beside it.
#pragma once

#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/metrics/figures.h"
#include "pipette/metrics/headline.h"
#include "pipette/report/document.h"
#include "pipette/report/table.h"

namespace pipette::report {

// Text columns, each value as shown; a row is noisy when its figure is. Parameter columns:
// threads and flash attention always (they decide CPU speed most), any other parameter only
// where it varies. Quality columns: each workload's headline (`figures.headlines()`, in their
// order), only when some cell has that figure. Footnotes: what a "*" on a quantization means.
Table SummaryTable(const std::vector<metrics::ResultRow>& rows,
                   const runtime::ParamRegistry& params, const metrics::FigureCatalogue& figures);

// The cells that did not complete (failed, running, interrupted, abandoned), in cell order.
std::vector<CellNote> IncompleteCells(const std::vector<store::CellRecord>& cells);

}  // namespace pipette::report
