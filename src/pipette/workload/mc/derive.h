// Derivation of the mc workload.
#pragma once

#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/metrics/figures.h"
#include "pipette/metrics/headline.h"
#include "pipette/util/result.h"

namespace pipette::workload {

// The mc workload's figures from its stored samples (docs/metrics.md "mc"): acc and acc_norm over
// the whole set, per language, per task type and per both, with Wilson intervals, and the
// dataset's tok_per_kchar. An error when a stored sample cannot be read.
Status DeriveMc(const metrics::ResultRow& base, const std::vector<store::SampleRecord>& samples,
                std::vector<metrics::ResultRow>* rows);

// Its summary column (accuracy with its 95% interval) and `report --vary` column.
metrics::Headline McHeadline();

// Its figures (metrics/figures.h): accuracy, length-normalised accuracy, tokens per kchar.
std::vector<metrics::FigureDef> McFigures();

}  // namespace pipette::workload
