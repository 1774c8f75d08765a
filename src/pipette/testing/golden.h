// Golden-output checks for the unit tests: a text against tests/golden/NAME, which
// PIPETTE_UPDATE_GOLDEN=1 rewrites after an intended change
// (PIPETTE_UPDATE_GOLDEN=1 build/pipette_unit_tests --gtest_filter='*Golden*').
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "pipette/testing/paths.h"

namespace pipette::testing {

inline void ExpectGolden(const std::string& text, const std::string& name) {
  const std::string path = pipette::testing::SourceDir() + "/tests/golden/" + name;
  if (std::getenv("PIPETTE_UPDATE_GOLDEN")) std::ofstream(path, std::ios::binary) << text;
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << path;
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(text, expected.str()) << "golden file: " << path;
}

}  // namespace pipette::testing
