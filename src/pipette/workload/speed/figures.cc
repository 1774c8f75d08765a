#include "pipette/workload/speed/figures.h"

#include "pipette/workload/speed/test_kinds.h"

namespace pipette::workload {

std::vector<metrics::FigureDef> SpeedFiguresOf(const speed::TestKindTable& kinds) {
  std::vector<metrics::FigureDef> all;
  for (const speed::TestKind& k : kinds) {
    for (metrics::FigureDef& d : k.figures()) all.push_back(std::move(d));
  }
  return all;
}

}  // namespace pipette::workload
