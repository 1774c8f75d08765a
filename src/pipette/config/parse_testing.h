// The parse tests' helpers: parsing is pure, so the cases name files that do not exist.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "pipette/config/parse.h"

namespace pipette::config::testing {

inline Result<WrittenExperiment> Parse(const std::string& text) {
  return ParseExperiment(text, "ex.yaml", runtime::ParamRegistry::Default(), QualityRegistry());
}

// The message of the bad-input error (exit code 2) `text` must give.
inline std::string ErrorOf(const std::string& text) {
  auto r = Parse(text);
  EXPECT_FALSE(r.ok()) << text;
  if (r.ok()) return "";
  EXPECT_EQ(r.error().exit_code, 2);
  return r.error().message;
}

}  // namespace pipette::config::testing
