// What `pipette` hands the experiment's parser: every section Pipette ships and the device kinds.
#include "pipette/app/experiment_specs.h"

#include <gtest/gtest.h>

#include "pipette/config/canonical.h"
#include "pipette/config/parse.h"
#include "pipette/device/registry.h"
#include "pipette/runtime/registry.h"

namespace pipette::app {
namespace {

TEST(ExperimentSpecs, TheSectionsAndDeviceKindsPipetteShips) {
  for (const char* name : {"ready", "cooldown", "select"}) {
    EXPECT_NE(ExperimentSpecs().FindSection(name), nullptr) << name;
  }
  ASSERT_NE(ExperimentSpecs().devices(), nullptr);
  EXPECT_NE(ExperimentSpecs().devices()->Find("ssh"), nullptr);
  auto ex = config::ParseExperiment(
      "models: [m.gguf]\ntests: [pp16]\nready: true\ncooldown: 5\n"
      "devices:\n  - {name: board, ssh: {host: 10.0.0.2}}\n",
      "ex.yaml", runtime::ParamRegistry::Default(), ExperimentSpecs(), runtime::Registry());
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  const auto canonical = config::CanonicalForm(*ex);
  EXPECT_EQ(canonical["cooldown"], 5.0);
  EXPECT_TRUE(canonical.contains("ready"));
  EXPECT_EQ(canonical["devices"][0]["kind"], "ssh");
}

}  // namespace
}  // namespace pipette::app
