#include "pipette/report/command_output.h"

#include <gtest/gtest.h>

#include <sstream>

namespace pipette::report {
namespace {

TEST(CommandOutput, EachFormatIsItsRenderer) {
  Table t;
  t.columns = {{"x", ColumnType::kInteger, "", Align::kRight}};
  t.Add({Integer(7)});
  const CommandOutput output{[](std::ostream& o) { o << "# md\n"; },
                             [] {
                               return nlohmann::ordered_json{{"k", 1}};
                             },
                             [&] { return t; }};
  auto render = [&](const std::string& format) {
    std::ostringstream out;
    RenderCommandOutput(format, output, out);
    return out.str();
  };
  EXPECT_EQ(render("md"), "# md\n");
  EXPECT_EQ(render("json"), "{\n  \"k\": 1\n}\n");
  EXPECT_EQ(render("csv"), "x\n7\n");
  EXPECT_EQ(render("jsonl"), "{\"x\":7}\n");
}

TEST(CommandOutput, AnotherFormatIsBadInputNamingTheCommand) {
  for (const char* f : {"md", "json", "csv", "jsonl"}) {
    EXPECT_TRUE(CheckCommandFormat("compare", f).ok()) << f;
  }
  const Status html = CheckCommandFormat("select", "html");
  ASSERT_FALSE(html.ok());
  EXPECT_EQ(html.error().exit_code, 2);
  EXPECT_EQ(html.error().message, "--format html: select writes md, json, csv or jsonl");
  // A command without one table (predict: a table per group) writes md or json.
  EXPECT_TRUE(CheckCommandFormat("predict", "json", /*tables=*/false).ok());
  const Status csv = CheckCommandFormat("predict", "csv", /*tables=*/false);
  ASSERT_FALSE(csv.ok());
  EXPECT_EQ(csv.error().message, "--format csv: predict writes md or json");
}

}  // namespace
}  // namespace pipette::report
