// The figures of a cell's facts, which DeriveRows (derive.h) gives every cell whatever its
// workloads: the load's times and RSS change, the peak RSS and KV cache, the model file's size.
#pragma once

#include <vector>

#include "pipette/metrics/figures.h"

namespace pipette::metrics {

std::vector<FigureDef> CellFigures();

}  // namespace pipette::metrics
