// Experiment files (docs/config.md): config::ParseExperiment on any text, with the parameters,
// quality workloads, test kinds, runtimes, device kinds and top-level sections (ready:, cooldown:,
// select:) Pipette ships: app::ExperimentSpecs() itself (the one file of app/ the fuzz build
// compiles, CMakeLists.txt); a file that parses is put in canonical form too.
#include <cstddef>
#include <cstdint>
#include <string>

#include "pipette/app/experiment_specs.h"
#include "pipette/config/canonical.h"
#include "pipette/config/parse.h"
#include "pipette/runtime/registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto written = pipette::config::ParseExperiment(
      text, "fuzz.yaml", pipette::runtime::Registry().Params(), pipette::app::ExperimentSpecs(),
      pipette::runtime::Registry());
  if (written) (void)pipette::config::CanonicalForm(*written).dump();
  return 0;
}
