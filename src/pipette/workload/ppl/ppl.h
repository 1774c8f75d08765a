// Perplexity (docs/metrics.md "ppl"): the corpus tokenized with the model's tokenizer, each
// chunk's second half scored; the raw log-probabilities are stored per chunk.
#pragma once

#include <memory>

#include "pipette/workload/workload.h"

namespace pipette::workload {

std::unique_ptr<Workload> NewPpl();

}  // namespace pipette::workload
