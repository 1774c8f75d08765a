// The speed tests' figures (docs/metrics.md "Speed"): each test kind's (test_kinds.h), in the
// table's order, an endpoint's streams among them, each with its unit, which way is better and
// its headline.
#pragma once

#include <vector>

#include "pipette/metrics/figures.h"
#include "pipette/workload/speed/test_kinds.h"

namespace pipette::workload {

std::vector<metrics::FigureDef> SpeedFigures();
// Those of `kinds` (a test's).
std::vector<metrics::FigureDef> SpeedFiguresOf(const speed::TestKindTable& kinds);

}  // namespace pipette::workload
