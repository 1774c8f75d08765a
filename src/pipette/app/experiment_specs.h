// What the experiment file's parser is given of the layers above config/: the quality
// workloads, the grammar of `tests:` and the figures (workload::QualitySpecs()), the top-level
// sections their owners define, and the device kinds `devices:` may name. A new top-level section
// is its def (a config::SpecDef in its owner's folder, as select/section.h) and one line in
// experiment_specs.cc (docs/architecture.md "Adding an experiment section").
#pragma once

#include "pipette/config/spec_def.h"

namespace pipette::app {

const config::SpecRegistry& ExperimentSpecs();

}  // namespace pipette::app
