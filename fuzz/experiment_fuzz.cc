// Experiment files (docs/config.md): config::ParseExperiment on any text, with the parameters,
// quality workloads, test kinds, runtimes, device kinds and top-level sections (ready:, cooldown:,
// select:) Pipette ships, as app::ExperimentSpecs() assembles them (app/ is not in the fuzz
// build); a file that parses is put in canonical form too.
#include <cstddef>
#include <cstdint>
#include <string>

#include "pipette/config/canonical.h"
#include "pipette/config/parse.h"
#include "pipette/device/registry.h"
#include "pipette/run/ready_section.h"
#include "pipette/runtime/registry.h"
#include "pipette/select/section.h"
#include "pipette/workload/registry.h"

namespace {

const pipette::config::SpecRegistry& Specs() {
  static const pipette::select::ProfilesSection kSelect(&pipette::workload::Figures());
  static const pipette::config::SpecRegistry kAll =
      pipette::workload::QualitySpecs()
          .WithSections(
              {&pipette::run::ReadySectionDef(), &pipette::run::CooldownSectionDef(), &kSelect})
          .WithDevices(&pipette::device::DeviceKinds());
  return kAll;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto written =
      pipette::config::ParseExperiment(text, "fuzz.yaml", pipette::runtime::Registry().Params(),
                                       Specs(), pipette::runtime::Registry());
  if (written) (void)pipette::config::CanonicalForm(*written).dump();
  return 0;
}
