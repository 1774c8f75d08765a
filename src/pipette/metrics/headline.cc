#include "pipette/metrics/headline.h"

namespace pipette::metrics {

const ResultRow* LastWithMetric(const std::vector<const ResultRow*>& rows,
                                const std::string& metric) {
  const ResultRow* found = nullptr;
  for (const ResultRow* r : rows) {
    if (r->metric == metric) found = r;
  }
  return found;
}

}  // namespace pipette::metrics
