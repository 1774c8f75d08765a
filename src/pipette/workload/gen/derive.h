// Derivation of the gen workload (and its divergence figures).
#pragma once

#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/metrics/figures.h"
#include "pipette/metrics/headline.h"
#include "pipette/util/result.h"

namespace pipette::workload {

// The gen workload's figures from its stored samples (docs/metrics.md "gen", "divergence"): every
// item's output judged by its checkers (format_ok, task_acc, with Wilson intervals), the
// dataset's tok_per_kchar, and, when the experiment names a divergence reference, this cell's
// greedy outputs against the reference cell's (`by_id`). An error when a stored sample cannot be
// read.
Status DeriveGen(const metrics::ResultRow& base, const metrics::CellSamples& cell,
                 const metrics::CellsById& by_id, std::vector<metrics::ResultRow>* rows);

// Its summary column (format_ok / task_acc) and `report --vary` column (task_acc).
metrics::Headline GenHeadline();

// Its figures (metrics/figures.h): format and task accuracy, failed and unfinished items.
std::vector<metrics::FigureDef> GenFigures();

// The divergence figures gen's rows give (quality: divergence): the share of outputs identical
// to the reference model's, and where the first difference is.
std::vector<metrics::FigureDef> DivergenceFigures();

}  // namespace pipette::workload
