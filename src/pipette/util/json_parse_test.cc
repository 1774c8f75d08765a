#include "pipette/util/json_parse.h"

#include <gtest/gtest.h>

#include <string>

namespace pipette {
namespace {

TEST(JsonParseBounded, ParsesOrdinaryJson) {
  auto j = ParseJsonBounded(R"({"a": [1, {"b": "x"}], "c": null})", "t.json");
  ASSERT_TRUE(j.ok()) << j.error().message;
  EXPECT_EQ((*j)["a"][1]["b"], "x");
  EXPECT_TRUE((*j)["c"].is_null());
}

// A number past a double is an error, never an uncaught out_of_range (fuzz/sse_fuzz.cc).
TEST(JsonParseBounded, RefusesANumberPastADouble) {
  auto j = ParseJsonBounded("{\"n\": 1e999}", "the event");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().message.rfind("the event: not JSON", 0), 0u) << j.error().message;
}

TEST(JsonParseBounded, RefusesNotJsonNamingTheSource) {
  auto j = ParseJsonBounded("{\"a\": ", "report.json");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().exit_code, 2);
  EXPECT_EQ(j.error().message.rfind("report.json: not JSON", 0), 0u) << j.error().message;
}

TEST(JsonParseBounded, RefusesDeepNestingWithoutBuildingIt) {
  // 500,000 nested arrays (1 MB): copying or walking such a value overflows the stack.
  const std::string deep = std::string(500000, '[') + std::string(500000, ']');
  auto j = ParseJsonBounded(deep, "x.json");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().exit_code, 2);
  EXPECT_NE(j.error().message.find("x.json: JSON nested deeper than 64 levels"), std::string::npos)
      << j.error().message;
  const std::string objects =
      "{\"results\":" + std::string(100000, '[') + "1" + std::string(100000, ']') + "}";
  EXPECT_FALSE(ParseJsonBounded(objects, "y.json").ok());
}

TEST(JsonParseBounded, AcceptsNestingAtTheLimit) {
  const std::string at = std::string(64, '[') + std::string(64, ']');
  EXPECT_TRUE(ParseJsonBounded(at, "t").ok());
  const std::string over = std::string(65, '[') + std::string(65, ']');
  EXPECT_FALSE(ParseJsonBounded(over, "t").ok());
  // Brackets inside strings are text, not nesting.
  const std::string in_string = "[\"" + std::string(1000, '[') + "\"]";
  EXPECT_TRUE(ParseJsonBounded(in_string, "t").ok());
}

}  // namespace
}  // namespace pipette
