#include "pipette/workload/registry.h"

#include <algorithm>

#include "pipette/workload/gen/gen.h"
#include "pipette/workload/kld/kld.h"
#include "pipette/workload/mc/mc.h"
#include "pipette/workload/ppl/ppl.h"
#include "pipette/workload/speed/speed.h"

namespace pipette::workload {

std::vector<std::unique_ptr<Workload>> MakeWorkloads() {
  std::vector<std::unique_ptr<Workload>> w;
  w.push_back(NewSpeed());  // pp, tg, ttft: the experiment's `tests`
  w.push_back(NewPpl());
  w.push_back(NewKld());
  w.push_back(NewMc());
  w.push_back(NewGen());
  return w;
}

int64_t ContextNeed(const config::Experiment& ex, int64_t depth) {
  int64_t need = 0;
  for (const auto& w : MakeWorkloads()) need = std::max(need, w->ContextNeed(ex, depth));
  return need;
}

}  // namespace pipette::workload
