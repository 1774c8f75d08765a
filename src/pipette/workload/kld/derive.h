// Derivation of the kld workload.
#pragma once

#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/metrics/figures.h"
#include "pipette/metrics/headline.h"
#include "pipette/util/result.h"

namespace pipette::workload {

// The kld workload's figures from its stored samples (docs/metrics.md "kld"): full-vocabulary
// samples carry each position's KL; top-k samples are reduced against the reference cell's stored
// distribution (`by_id`), a lower bound. An error when a stored sample cannot be read.
Status DeriveKld(const metrics::ResultRow& base, const std::vector<store::SampleRecord>& samples,
                 const metrics::CellsById& by_id, std::vector<metrics::ResultRow>* rows);

// Its summary column (mean KL / top-1 agreement; a top-k reference's figure as the lower bound
// it is) and `report --vary` column.
metrics::Headline KldHeadline();

// Its figures (metrics/figures.h): the KL divergence's summaries, top-1 agreement, ...
std::vector<metrics::FigureDef> KldFigures();

}  // namespace pipette::workload
