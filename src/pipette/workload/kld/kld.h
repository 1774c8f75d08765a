// KL divergence against the reference model (docs/metrics.md "kld"), on the chunks and
// positions of ppl: over the full vocabulary (a reference worker of its own, logits frames
// compared as they arrive) or, in mode topk, against the reference's stored top-k distribution.
#pragma once

#include <memory>

#include "pipette/workload/workload.h"

namespace pipette::workload {

std::unique_ptr<Workload> NewKld();

}  // namespace pipette::workload
