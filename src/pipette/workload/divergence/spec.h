// The spec of quality: divergence (docs/metrics.md "divergence"): the gen outputs of each model
// compared token by token with a reference model's. Its def (config/spec_def.h) parses it,
// checks it has gen outputs to compare, and runs the reference first; the comparison itself is
// derived with gen's rows (workload/gen/derive.h).
#pragma once

#include <string>

#include "pipette/config/experiment.h"
#include "pipette/config/spec_def.h"

namespace pipette::workload {

// As written and as resolved: the same.
struct DivergenceSpec {
  std::string reference;  // name of a model of this experiment
};

const config::SpecDef& DivergenceSpecDef();

// The experiment's divergence spec, or nullptr when it has none.
const DivergenceSpec* DivergenceSpecOf(const config::Experiment& ex);
// Gives `ex` this divergence spec (tests and tools that make an experiment without a file).
void SetDivergenceSpec(config::Experiment* ex, DivergenceSpec spec);

}  // namespace pipette::workload
