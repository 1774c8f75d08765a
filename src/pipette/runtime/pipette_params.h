// Pipette's own parameters: those whose meaning is Pipette's, not a runtime's (n_ctx with 0 =
// just enough for the cell's tests, depth). Every runtime has them; the runtime registry adds
// them beside each runtime's own (runtime/registry.h).
#pragma once

#include "pipette/runtime/params.h"

namespace pipette::runtime {

ParamRegistry PipetteParams();

}  // namespace pipette::runtime
