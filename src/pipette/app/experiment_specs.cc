#include "pipette/app/experiment_specs.h"

#include "pipette/select/section.h"
#include "pipette/workload/registry.h"

namespace pipette::app {

const config::QualityRegistry& ExperimentSpecs() {
  static const select::ProfilesSection kSelect(&workload::Figures());
  static const config::QualityRegistry kAll = workload::QualitySpecs().WithSections({
      &kSelect,  // select: the profiles of `pipette select`
  });
  return kAll;
}

}  // namespace pipette::app
