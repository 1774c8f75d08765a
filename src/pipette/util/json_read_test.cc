#include "pipette/util/json_read.h"

#include <gtest/gtest.h>

namespace pipette::json_read {
namespace {

using nlohmann::json;

TEST(JsonRead, AValueOfAnotherTypeReadsAsAbsent) {
  const json j = {{"n", "12"}, {"s", 3}, {"b", 1}, {"a", {1, 2}}};
  EXPECT_FALSE(Int(j, "n"));
  EXPECT_FALSE(Number(j, "n"));
  EXPECT_EQ(String(j, "s", "none"), "none");
  EXPECT_TRUE(Flag(j, "b", true));
  EXPECT_FALSE(Flag(j, "b", false));
  EXPECT_TRUE(Member(j, "missing").is_null());
  EXPECT_EQ(Member(j, "a"), json({1, 2}));
}

TEST(JsonRead, RefPointsIntoTheObjectOrAtNull) {
  const json j = {{"tokens", {1, 2, 3}}};
  EXPECT_EQ(&Ref(j, "tokens"), &j.at("tokens"));  // no copy
  EXPECT_TRUE(Ref(j, "missing").is_null());
  EXPECT_TRUE(Ref(json(3), "tokens").is_null());
  EXPECT_EQ(Ref(j, "missing").size(), 0u);
}

TEST(JsonRead, ANonObjectHasNoMembers) {
  for (const json& j : {json(), json(5), json("x"), json::array({1, 2})}) {
    EXPECT_TRUE(Member(j, "k").is_null()) << j;
    EXPECT_FALSE(Int(j, "k")) << j;
    EXPECT_EQ(String(j, "k"), "") << j;
  }
}

TEST(JsonRead, WholeNumbersAreBoundedToInt64) {
  EXPECT_EQ(AsInt(json(42)), 42);
  EXPECT_EQ(AsInt(json(-7)), -7);
  EXPECT_EQ(AsInt(json(2.9)), 2);  // a float that fits is cut toward zero
  EXPECT_FALSE(AsInt(json(1e300)));
  EXPECT_FALSE(AsInt(json(std::numeric_limits<double>::quiet_NaN())));
  EXPECT_FALSE(AsInt(json(uint64_t{1} << 63)));
  EXPECT_EQ(AsInt(json(int64_t{1} << 62)), int64_t{1} << 62);
  EXPECT_FALSE(AsInt(json(true)));
}

TEST(JsonRead, IntsStopAtTheFirstValueOfAnotherType) {
  EXPECT_EQ(Ints(json({1, 2, "3", 4})), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(Ints(json({{"a", 1}})).empty());
  EXPECT_TRUE(Ints(json(3)).empty());
}

}  // namespace
}  // namespace pipette::json_read
