// Multiple choice (docs/metrics.md "mc"): each choice's continuation tokens scored given the
// question, one `score` request per choice; the raw log-probabilities are stored per item, the
// figures derived.
#pragma once

#include <memory>

#include "pipette/workload/workload.h"

namespace pipette::workload {

std::unique_ptr<Workload> NewMc();

}  // namespace pipette::workload
