#include "pipette/app/run_exports.h"

#include <gtest/gtest.h>

namespace pipette::app {
namespace {

// The fixed options first, then each --export FORMAT=PATH in the order given, with the option
// that named it (the run's closing lines name it).
TEST(RunExports, EachOptionNamesAFormatAndAPath) {
  RunArgs args;
  args.export_md = "r.md";
  args.exports = {"sql=r.sql", "jsonl=r.jsonl"};
  auto e = ExportsOf(args);
  ASSERT_TRUE(e.ok()) << e.error().message;
  ASSERT_EQ(e->size(), 3u);
  EXPECT_EQ((*e)[0].format, "md");
  EXPECT_EQ((*e)[0].option, "--export-md");
  EXPECT_EQ((*e)[1].format, "sql");
  EXPECT_EQ((*e)[1].path, "r.sql");
  EXPECT_EQ((*e)[1].option, "--export sql=");
  EXPECT_EQ((*e)[2].path, "r.jsonl");
}

// A malformed or unknown --export is bad input, before anything runs.
TEST(RunExports, AMalformedOrUnknownExportIsBadInput) {
  RunArgs args;
  args.exports = {"sql"};
  auto bad = ExportsOf(args);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().exit_code, 2);
  EXPECT_NE(bad.error().message.find("give FORMAT=PATH"), std::string::npos);
  args.exports = {"docx=r.docx"};
  auto unknown = ExportsOf(args);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().exit_code, 2);
  EXPECT_EQ(unknown.error().message.rfind("--export docx=r.docx: ", 0), 0u)
      << unknown.error().message;
}

}  // namespace
}  // namespace pipette::app
