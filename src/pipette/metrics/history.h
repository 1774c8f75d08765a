// The history of measured phases that time estimates start from (estimate/history.h), derived
// from earlier runs' raw samples.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "pipette/estimate/history.h"
#include "pipette/metrics/derive.h"
#include "pipette/store/store.h"

namespace pipette::metrics {

// What earlier requests took, from samples keyed by their cell's key: the median seconds per
// (cell key, test) and the median seconds per unit per kind of work. Each sample is read by the
// workload it belongs to (RowDeriver::Timed, of `derivers`); the load by the history itself.
// Samples of no timed request (memory, context) are left out.
estimate::History BuildHistory(
    const std::vector<std::pair<std::string, store::SampleRecord>>& keyed_samples,
    const RowDerivers& derivers);

}  // namespace pipette::metrics
