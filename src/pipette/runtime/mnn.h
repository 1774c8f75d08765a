// The MNN entry (runtime/registry.h): reached through pipette-worker-mnn (workers/mnn, a Python
// worker on the pinned mnn package: the Module API, CPU backend, precision high), loads the
// folders `pipette_convert mnn` makes (format "mnn"), threads and n_batch (llama.cpp's names)
// and the batch clamped to the context.
#pragma once

#include "pipette/runtime/params.h"
#include "pipette/runtime/runtime.h"

namespace pipette::runtime {

Runtime Mnn();

ParamRegistry MnnParams();

}  // namespace pipette::runtime
