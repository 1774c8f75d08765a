// The speed tests (docs/metrics.md): pp (prompt processing), tg (token generation at a depth)
// and ttft (time to first token of a text prompt), one phase per test of the experiment's
// `tests`, each repeated warmup + repetitions times.
#pragma once

#include <memory>

#include "pipette/workload/workload.h"

namespace pipette::workload {

std::unique_ptr<Workload> NewSpeed();

}  // namespace pipette::workload
