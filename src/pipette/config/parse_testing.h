// The parse tests' helpers: parsing is pure, so the cases name files that do not exist. The
// experiments may name the speed tests Pipette ships (their grammar is the speed workload's) and
// no quality workload.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "pipette/config/parse.h"
#include "pipette/device/registry.h"
#include "pipette/workload/speed/test_kinds.h"

namespace pipette::config::testing {

// Test names read by the speed workload's grammar; no quality workload.
inline const SpecRegistry& TestsOnly() {
  static const SpecRegistry tests_only =
      SpecRegistry({}, nullptr, workload::ParseTestName).WithDevices(&device::DeviceKinds());
  return tests_only;
}

// `text` as ex.yaml, with the registry `specs` (TestsOnly() unless given).
inline Result<WrittenExperiment> Parse(const std::string& text,
                                       const SpecRegistry& specs = TestsOnly()) {
  return ParseExperiment(text, "ex.yaml", runtime::ParamRegistry::Default(), specs,
                         runtime::Registry());
}

// The message of the bad-input error (exit code 2) `text` must give.
inline std::string ErrorOf(const std::string& text, const SpecRegistry& specs = TestsOnly()) {
  auto r = Parse(text, specs);
  EXPECT_FALSE(r.ok()) << text;
  if (r.ok()) return "";
  EXPECT_EQ(r.error().exit_code, 2);
  return r.error().message;
}

}  // namespace pipette::config::testing
