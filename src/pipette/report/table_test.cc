#include "pipette/report/table.h"

#include <gtest/gtest.h>

#include <sstream>

#include "pipette/report/markdown.h"
#include "pipette/report/table_formats.h"

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

// How a text format writes typed values: each column's form, a size by the column's unit or the
// row's, and the defaults as JSON writes them.
TEST(Table, TextFormsWriteTypedValues) {
  const Column plain{"p", ColumnType::kReal, "", Align::kRight};
  const Column four{"f", ColumnType::kReal, "", Align::kRight, {.real = "{:.4g}", .null = "—"}};
  const Column sizes{"s", ColumnType::kReal, "", Align::kRight, {.real = "{:.4g}", .sizes = true}};
  const Column yes_no{"b", ColumnType::kBoolean, "", Align::kLeft, {.yes = "yes", .no = "NO"}};
  Row row;
  EXPECT_EQ(TextOf(plain, row, Real(0.125)), "0.125");
  EXPECT_EQ(TextOf(plain, row, Null()), "");
  EXPECT_EQ(TextOf(plain, row, Boolean(true)), "true");
  EXPECT_EQ(TextOf(four, row, Real(3.14159)), "3.142");
  EXPECT_EQ(TextOf(four, row, Null()), "—");
  EXPECT_EQ(TextOf(four, row, Text("as is")), "as is");
  EXPECT_EQ(TextOf(yes_no, row, Boolean(true)), "yes");
  EXPECT_EQ(TextOf(yes_no, row, Boolean(false)), "NO");
  EXPECT_EQ(TextOf(sizes, row, Real(2.0e8)), "2e+08");  // no unit: a number
  row.unit = "bytes";
  EXPECT_EQ(TextOf(sizes, row, Real(2.0e8)), "190.73 MiB");
  EXPECT_EQ(TextOf(four, row, Real(2.0e8)), "2e+08");  // a form without sizes
}

// A column only the text formats show is left out of the data formats, and one only the data
// formats show is left out of Markdown.
TEST(Table, EachFormatShowsItsColumns) {
  Table t;
  t.columns = {{"both", ColumnType::kText, "", Align::kLeft},
               {"text", ColumnType::kText, "", Align::kLeft, {}, ShownIn::kText},
               {"data", ColumnType::kReal, "", Align::kRight, {}, ShownIn::kData}};
  t.Add({Text("a,b"), Text("×1.5"), Real(1.5)});
  EXPECT_EQ(RowObject(t, t.rows[0]).dump(), R"({"both":"a,b","data":1.5})");
  std::ostringstream md, csv, jsonl;
  WriteMarkdownTable(t, md);
  EXPECT_EQ(md.str(), "| both | text |\n| ---- | ---- |\n| a,b  | ×1.5 |\n");
  WriteCsvTable(t, csv);
  EXPECT_EQ(csv.str(), "both,data\n\"a,b\",1.5\n");
  WriteJsonlTable(t, jsonl);
  EXPECT_EQ(jsonl.str(), R"({"both":"a,b","data":1.5})"
                         "\n");
}

}  // namespace
}  // namespace pipette::report
