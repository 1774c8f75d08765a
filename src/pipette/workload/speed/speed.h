// The speed tests (docs/metrics.md "Speed"): one phase per test of the experiment's `tests`, each
// run by its kind (test_kinds.h: pp, tg, ttft, e2e, sustained), repeated warmup + repetitions
// times unless the kind runs a loop of its own.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "pipette/workload/speed/test_kinds.h"
#include "pipette/workload/workload.h"

namespace pipette::workload {

// The speed workload of the kinds Pipette ships, or of `kinds` (a test's; it must outlive the
// workload).
std::unique_ptr<Workload> NewSpeed();
std::unique_ptr<Workload> NewSpeed(const speed::TestKindTable& kinds);

// Tokens a cell's tests need in the context: the most any of them needs (TestKind::context_need).
int64_t TokensNeeded(const std::vector<config::TestSpec>& tests, int64_t depth,
                     const speed::TestKindTable& kinds);

}  // namespace pipette::workload
