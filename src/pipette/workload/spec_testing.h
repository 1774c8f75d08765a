// For the spec tests of the quality workloads (workload/*/spec_test.cc): config's experiment
// fixture (config/experiment_testing.h) with the quality workloads Pipette ships, and parsing
// alone (pure: no file is read).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pipette/config/experiment_testing.h"
#include "pipette/config/parse.h"
#include "pipette/model_formats/formats.h"
#include "pipette/runtime/registry.h"
#include "pipette/workload/registry.h"

namespace pipette::workload {

class SpecTest : public config::ExperimentTest {
 protected:
  void SetUp() override {
    config::ExperimentTest::SetUp();
    opts_.specs = &QualitySpecs();
    opts_.runtimes = &runtime::Registry();
    opts_.formats = &model_formats::Registry();
  }
};

// `text` as written (config/parse.h), named ex.yaml.
inline Result<config::WrittenExperiment> ParseWritten(const std::string& text) {
  return config::ParseExperiment(text, "ex.yaml", runtime::ParamRegistry::Default(), QualitySpecs(),
                                 runtime::Registry());
}

// The error of parsing `text`, which must be bad input.
inline std::string WrittenErrorOf(const std::string& text) {
  auto r = ParseWritten(text);
  EXPECT_FALSE(r.ok()) << text;
  if (r.ok()) return "";
  EXPECT_EQ(r.error().exit_code, 2);
  return r.error().message;
}

// A resolved experiment with three models a, b, c (no files: validation reads none).
inline config::Experiment ThreeModels() {
  config::Experiment ex;
  ex.path = "ex.yaml";
  for (const char* n : {"a", "b", "c"}) {
    config::ModelSpec m;
    m.name = n;
    m.path = std::string("/m/") + n + ".gguf";
    ex.models.push_back(m);
  }
  return ex;
}

inline std::vector<std::string> ModelNames(const config::Experiment& ex) {
  std::vector<std::string> out;
  for (const auto& m : ex.models) out.push_back(m.name);
  return out;
}

inline const std::string kSmol = "models: [smollm2-135m-instruct-q4_1]\n";

}  // namespace pipette::workload
