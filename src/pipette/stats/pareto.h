// The Pareto-optimal points of a set: those no other point beats in one coordinate without being
// worse in another. Used by the HTML report's frontiers and by `pipette select`.
#pragma once

#include <vector>

namespace pipette::stats {

// points[i][k]: point i's k-th coordinate, higher being better in every coordinate (negate one
// where lower is better). Result[i]: no point is at least as good in every coordinate and better
// in one. Equal points are all optimal.
std::vector<bool> ParetoOptimal(const std::vector<std::vector<double>>& points);

}  // namespace pipette::stats
