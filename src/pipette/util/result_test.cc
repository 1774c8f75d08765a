#include "pipette/util/result.h"

#include <gtest/gtest.h>

namespace pipette {
namespace {

TEST(ErrorContext, DescribeRendersTheFilePlaceBeforeTheProblem) {
  EXPECT_EQ(Describe({.file = "exp.yaml", .line = 3, .column = 5}, "unknown key"),
            "exp.yaml:3:5: unknown key");
  EXPECT_EQ(Describe({.file = "exp.yaml", .line = 3}, "unknown key"), "exp.yaml:3: unknown key");
  EXPECT_EQ(Describe({.file = "exp.yaml"}, "empty"), "exp.yaml: empty");
  EXPECT_EQ(Describe({.file = "exp.yaml", .column = 4}, "empty"), "exp.yaml: empty");
  // The cell and the op are data: the texts that name them do so in their own words.
  EXPECT_EQ(Describe({.cell = "2 (m=a,t=pp16)", .op = "pp"}, "timed out"), "timed out");
  EXPECT_EQ(Describe({}, "plain"), "plain");
}

TEST(ErrorContext, ErrorAtKeepsThePlaceAsDataAndInItsMessage) {
  const Error e = ErrorAt({.file = "exp.yaml", .line = 7, .column = 1}, "bad value", 2);
  EXPECT_EQ(e.message, "exp.yaml:7:1: bad value");
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_EQ(e.context.file, "exp.yaml");
  EXPECT_EQ(e.context.line, 7);
  EXPECT_EQ(e.context.column, 1);
  EXPECT_TRUE(e.context.cell.empty());
  EXPECT_TRUE(e.context.op.empty());
  const Status failed = e;  // a Status carries it unchanged
  EXPECT_EQ(failed.error().context.line, 7);
  EXPECT_EQ(failed.error().message, e.message);
}

TEST(ErrorContext, AnErrorMadeWithoutAPlaceHasNone) {
  const Error e = InputError("no models");
  EXPECT_EQ(e.message, "no models");
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_TRUE(e.context.file.empty());
  EXPECT_EQ(e.context.line, 0);
}

}  // namespace
}  // namespace pipette
