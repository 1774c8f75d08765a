// The speed tests (docs/metrics.md): pp (prompt processing), tg (token generation at a depth)
// and ttft (time to first token of a text prompt), one phase per test of the experiment's
// `tests`, each repeated warmup + repetitions times.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "pipette/workload/workload.h"

namespace pipette::workload {

std::unique_ptr<Workload> NewSpeed();

// Tokens a cell's tests need in the context (pp N; tg depth + N + 1; ttft P + 16).
int64_t TokensNeeded(const std::vector<config::TestSpec>& tests, int64_t depth);

}  // namespace pipette::workload
