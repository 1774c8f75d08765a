#include "pipette/stats/pareto.h"

#include <cstddef>

namespace pipette::stats {

std::vector<bool> ParetoOptimal(const std::vector<std::vector<double>>& points) {
  std::vector<bool> optimal(points.size(), true);
  for (size_t i = 0; i < points.size(); ++i) {
    for (size_t j = 0; j < points.size() && optimal[i]; ++j) {
      if (j == i) continue;
      bool all = true, one = false;
      for (size_t k = 0; k < points[i].size() && k < points[j].size(); ++k) {
        all = all && points[j][k] >= points[i][k];
        one = one || points[j][k] > points[i][k];
      }
      if (all && one) optimal[i] = false;
    }
  }
  return optimal;
}

}  // namespace pipette::stats
