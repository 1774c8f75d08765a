#include "pipette/report/table.h"

#include <gtest/gtest.h>

namespace pipette::report {
namespace {

TEST(Table, RowsAsJsonObjectsInColumnOrder) {
  Table t;
  auto col = [](const char* name, ColumnType type) { return Column{name, type, "", Align::kLeft}; };
  t.columns = {col("z", ColumnType::kText), col("a", ColumnType::kInteger),
               col("m", ColumnType::kReal), col("b", ColumnType::kBoolean),
               col("j", ColumnType::kJson), col("s", ColumnType::kReals),
               col("n", ColumnType::kText)};
  t.Add({Text("x"), Integer(-3), Real(0.5), Boolean(true), Json(nlohmann::ordered_json{{"k", 1}}),
         Reals({1.5, 2}), Null()},
        true);
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_TRUE(t.rows[0].noisy);
  EXPECT_EQ(RowObject(t, t.rows[0]).dump(),
            R"({"z":"x","a":-3,"m":0.5,"b":true,"j":{"k":1},"s":[1.5,2.0],"n":null})");
  EXPECT_EQ(t.Find("m"), 2u);
  EXPECT_FALSE(t.Find("nope").has_value());
  EXPECT_TRUE(IsNull(TextOrNull("")));
  EXPECT_EQ(std::get<std::string>(TextOrNull("t")), "t");
  EXPECT_TRUE(IsNull(RealOrNull(std::nullopt)));
  EXPECT_EQ(std::get<int64_t>(IntegerOrNull(7)), 7);
}

}  // namespace
}  // namespace pipette::report
