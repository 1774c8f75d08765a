// The figures of a cell's facts, which every cell has whatever its workloads: the load's times
// and RSS change, the peak RSS and KV cache, the model file's size. Derived by CellDeriver(), one
// of the derivers the workload registry hands down (workload::Derivers()).
#pragma once

#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/metrics/figures.h"

namespace pipette::metrics {

std::vector<FigureDef> CellFigures();

// The cell's facts as rows (docs/metrics.md "load", "peak RSS", "kv_bytes", "file size"), and
// their n/a rows: a peak the worker could not reset, a served model's KV cache, a phase the
// runtime does not serve.
const RowDeriver& CellDeriver();

}  // namespace pipette::metrics
