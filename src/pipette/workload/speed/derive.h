// The speed workload's figures of one cell (docs/metrics.md "Speed"): each measured repetition's
// by its kind (test_kinds.h), an endpoint test's stream counts, then, after every other
// workload's rows, the time per 1000 characters (from the ppl corpus's density) and the figures
// no repetition could give, with the reason.
#pragma once

#include <cstddef>
#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/util/result.h"
#include "pipette/workload/speed/test_kinds.h"

namespace pipette::workload::speed {

// RowDeriver::Derive of the speed workload whose kinds are `kinds`.
Status DeriveSpeed(const TestKindTable& kinds, const metrics::ResultRow& base,
                   const metrics::CellSamples& cell, const store::EnvironmentRecord& env,
                   std::vector<metrics::ResultRow>* rows);
// RowDeriver::Complete of the speed workload whose kinds are `kinds`.
void CompleteSpeed(const TestKindTable& kinds, const metrics::ResultRow& base,
                   const metrics::CellSamples& cell, const store::EnvironmentRecord& env,
                   std::vector<metrics::ResultRow>* rows, size_t first);

}  // namespace pipette::workload::speed
