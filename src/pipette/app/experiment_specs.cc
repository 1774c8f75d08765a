#include "pipette/app/experiment_specs.h"

#include "pipette/device/registry.h"
#include "pipette/run/ready_section.h"
#include "pipette/select/section.h"
#include "pipette/workload/registry.h"

namespace pipette::app {

const config::SpecRegistry& ExperimentSpecs() {
  static const select::ProfilesSection kSelect(&workload::Figures());
  static const config::SpecRegistry kAll = workload::QualitySpecs()
                                               .WithSections({
                                                   &run::ReadySectionDef(),     // ready:
                                                   &run::CooldownSectionDef(),  // cooldown:
                                                   &kSelect,  // select: `pipette select`'s
                                               })
                                               .WithDevices(&device::DeviceKinds());
  return kAll;
}

}  // namespace pipette::app
