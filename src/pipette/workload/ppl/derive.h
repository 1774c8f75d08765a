// Derivation of the ppl workload.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/metrics/figures.h"
#include "pipette/metrics/headline.h"
#include "pipette/util/result.h"

namespace pipette::workload {

// The ppl workload's figures from its stored samples (docs/metrics.md "ppl"): ppl over every
// scored token of the corpus, the per-chunk figures as its samples, and the corpus's tok_per_kchar.
// An error when a stored sample cannot be read.
Status DerivePpl(const metrics::ResultRow& base, const std::vector<store::SampleRecord>& samples,
                 std::vector<metrics::ResultRow>* rows);

// The tokens the cell's model makes of 1000 characters of the ppl corpus, from the cell's rows
// (`rows` from `first` on), where ppl gave it: what a speed test's time per token is scaled by
// to compare tokenizers alike (ms_per_kchar).
std::optional<double> CorpusTokensPerKchar(const std::vector<metrics::ResultRow>& rows,
                                           size_t first);

// Its summary column (ppl ± its standard error) and `report --vary` column.
metrics::Headline PplHeadline();

// Its figures (metrics/figures.h): ppl, and the corpus's tokens per 1000 characters.
std::vector<metrics::FigureDef> PplFigures();

}  // namespace pipette::workload
