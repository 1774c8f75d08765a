// The selection's formats against golden files, from one selection of literal rows. After an
// intended change: PIPETTE_UPDATE_GOLDEN=1 build/pipette_unit_tests --gtest_filter='SelectView*'
#include "pipette/select/view.h"

#include <gtest/gtest.h>

#include <sstream>

#include "pipette/report/command_output.h"
#include "pipette/select/select_rows_testing.h"
#include "pipette/testing/golden.h"
#include "pipette/workload/registry.h"

namespace pipette::select {
namespace {

TEST(SelectView, MarkdownGolden) {
  const Profile p = fixture::TestProfile();
  auto s = Select(workload::Figures(), fixture::Fixture(), p);
  ASSERT_TRUE(s.ok()) << s.error().message;
  std::ostringstream out;
  WriteSelectionMarkdown(*s, p, "results/pipette.db run 1", out);
  testing::ExpectGolden(out.str(), "select.md");
}

TEST(SelectView, JsonGolden) {
  const Profile p = fixture::TestProfile();
  auto s = Select(workload::Figures(), fixture::Fixture(), p);
  ASSERT_TRUE(s.ok()) << s.error().message;
  testing::ExpectGolden(SelectionJson(*s, p, "results/pipette.db run 1").dump(2) + "\n",
                        "select.json");
}

// The ranking, the table csv and jsonl write, from the same table as the Markdown and the JSON.
TEST(SelectView, RankingAsCsvAndJsonlGolden) {
  const Profile p = fixture::TestProfile();
  auto s = Select(workload::Figures(), fixture::Fixture(), p);
  ASSERT_TRUE(s.ok()) << s.error().message;
  for (const char* format : {"csv", "jsonl"}) {
    std::ostringstream out;
    report::RenderCommandOutput(format, {nullptr, nullptr, [&] { return RankedTable(*s); }}, out);
    testing::ExpectGolden(out.str(), std::string("select.") + format);
  }
}

}  // namespace
}  // namespace pipette::select
