// The speed tests' figures (docs/metrics.md "Speed"): pp, tg, ttft, e2e and sustained, an
// endpoint's streams among them, each with its unit, which way is better and its headline.
#pragma once

#include <vector>

#include "pipette/metrics/figures.h"

namespace pipette::workload {

std::vector<metrics::FigureDef> SpeedFigures();

}  // namespace pipette::workload
