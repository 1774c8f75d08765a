// For the config tests only: a folder of their own holding the experiment file's place and an
// empty placeholder worker program (nothing is run), the bundled models (real, fetched by
// scripts/setup.sh) and the shipped datasets, and the whole pipeline from text to experiment.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "pipette/config/experiment.h"
#include "pipette/config/parse_testing.h"
#include "pipette/model_formats/formats.h"
#include "pipette/runtime/registry.h"
#include "pipette/testing/paths.h"
#include "pipette/util/temp_dir.h"

namespace pipette::config {

class ExperimentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    opts_.models_dir = pipette::testing::SourceDir() + "/models";
    opts_.datasets_dir = pipette::testing::SourceDir() + "/datasets";
    ASSERT_TRUE(std::filesystem::exists(opts_.models_dir + "/SmolLM2-135M-Instruct.Q4_1.gguf"))
        << "run scripts/setup.sh (fetches the bundled model)";
    std::ofstream(dir_ / "pipette-worker-llama") << "";
    opts_.workers_dir = dir_.path().string();
    opts_.runtimes = &runtime::Registry();
    opts_.formats = &model_formats::Registry();
    opts_.specs = &testing::TestsOnly();
  }

  std::string File() const { return dir_ / "ex.yaml"; }
  Result<Experiment> Parse(const std::string& text) {
    return ExperimentFromText(text, File(), registry_, opts_);
  }
  // The error of `text`, which must be bad input, without the folder's prefix.
  std::string ErrorOf(const std::string& text) {
    auto r = Parse(text);
    EXPECT_FALSE(r.ok()) << text;
    if (r.ok()) return "";
    EXPECT_EQ(r.error().exit_code, 2);
    std::string m = r.error().message;
    const std::string prefix = (dir_.path() / "").string();
    if (m.rfind(prefix, 0) == 0) m = m.substr(prefix.size());
    return m;
  }

  TempDir dir_{"pipette-config-test"};
  runtime::ParamRegistry registry_ = runtime::ParamRegistry::Default();
  ResolveOptions opts_;
};

}  // namespace pipette::config
