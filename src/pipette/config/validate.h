// Checks across a resolved experiment that need its models' names: the kld and divergence
// references are models of the file (parsing checked they are one model, and that divergence
// has gen outputs to compare). The reference model is moved first: its cells run before the
// others, which compare with it.
#pragma once

#include "pipette/config/experiment.h"
#include "pipette/util/result.h"

namespace pipette::config {

Status ValidateAndOrder(Experiment* ex);

}  // namespace pipette::config
