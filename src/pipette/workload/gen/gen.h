// Generation (docs/metrics.md "gen", "divergence"): each item's prompt through the model's chat
// template, greedy; the raw output and the item's checkers are stored together, the verdicts
// derived. With a divergence reference, the first cell of the reference model that completes
// gen is the one every later cell is compared with.
#pragma once

#include <memory>

#include "pipette/workload/workload.h"

namespace pipette::workload {

std::unique_ptr<Workload> NewGen();

}  // namespace pipette::workload
