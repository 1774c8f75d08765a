#include "pipette/compare/sides.h"

#include <gtest/gtest.h>

namespace pipette::compare {
namespace {

metrics::ResultRow Row(const std::string& model, const std::string& quant, int threads) {
  metrics::ResultRow r;
  auto& c = r.EditCell();
  c.model = model;
  c.model_sha256 = "sha-" + model;
  c.quant = quant;
  c.runtime = "llama.cpp";
  c.device = "cpu";
  c.params = {{"threads", threads}};
  r.test = "tg16";
  r.metric = "throughput";
  r.unit = "t/s";
  return r;
}

TEST(OnlyRows, KeepsTheCellsWithEveryValue) {
  const std::vector<metrics::ResultRow> rows = {Row("a", "Q8_0", 1), Row("a", "Q8_0", 2),
                                                Row("a", "Q4_0", 2), Row("b", "Q4_0", 2)};
  auto two = OnlyRows(rows, "threads=2,quant=Q4_0", "--candidate-only");
  ASSERT_TRUE(two.ok()) << two.error().message;
  ASSERT_EQ(two->size(), 2u);
  // The model by its name or its SHA-256.
  auto by_name = OnlyRows(rows, "model=b", "--baseline-only");
  auto by_sha = OnlyRows(rows, "model=sha-b", "--baseline-only");
  ASSERT_TRUE(by_name.ok() && by_sha.ok());
  EXPECT_EQ(by_name->size(), 1u);
  EXPECT_EQ(by_sha->size(), 1u);
  EXPECT_EQ(OnlyRows(rows, "", "--baseline-only")->size(), 4u);
}

TEST(OnlyRows, BadFiltersAreInputErrorsThatSayWhatThereIs) {
  const std::vector<metrics::ResultRow> rows = {Row("a", "Q8_0", 1)};
  auto unknown = OnlyRows(rows, "thread=1", "--baseline-only");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().exit_code, 2);
  EXPECT_NE(unknown.error().message.find("--baseline-only thread=1: unknown key 'thread'"),
            std::string::npos);
  EXPECT_NE(unknown.error().message.find("threads"), std::string::npos);
  auto none = OnlyRows(rows, "quant=Q2_K", "--candidate-only");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no cell has quant=Q2_K (its values there: Q8_0)"),
            std::string::npos)
      << none.error().message;
  auto form = OnlyRows(rows, "quant", "--candidate-only");
  ASSERT_FALSE(form.ok());
  EXPECT_NE(form.error().message.find("is not key=value"), std::string::npos);
}

TEST(Interleaving, OneRunInRoundsSeparateRunsOrOneRunCellAfterCell) {
  const SideSource a{"r.db", "/x/r.db", 3, true};
  const Interleaving same = DescribeInterleaving(a, a);
  EXPECT_TRUE(same.same_run);
  EXPECT_TRUE(same.interleaved);
  EXPECT_EQ(same.note.rfind("Interleaved: both sides are cells of run 3", 0), 0u) << same.note;

  const SideSource plain{"r.db", "/x/r.db", 4, false};
  const Interleaving cell_after_cell = DescribeInterleaving(plain, plain);
  EXPECT_TRUE(cell_after_cell.same_run);
  EXPECT_FALSE(cell_after_cell.interleaved);
  EXPECT_NE(cell_after_cell.note.find("pipette run --interleave"), std::string::npos);

  // A resumed interleaved run: partly.
  SideSource resumed = a;
  resumed.resumes = 1;
  const Interleaving partly = DescribeInterleaving(resumed, resumed);
  EXPECT_TRUE(partly.same_run);
  EXPECT_FALSE(partly.interleaved);
  EXPECT_EQ(partly.note.rfind("Partly interleaved:", 0), 0u) << partly.note;

  // A JSON report that does not record it (before schema 7).
  const SideSource unknown{"r.json", "/x/r.json", 2, std::nullopt};
  const Interleaving unsaid = DescribeInterleaving(unknown, unknown);
  EXPECT_FALSE(unsaid.interleaved);
  EXPECT_NE(unsaid.note.find("(not recorded)"), std::string::npos) << unsaid.note;

  // Two runs are never interleaved with each other, even when each was.
  const Interleaving apart = DescribeInterleaving(a, {"s.db", "/x/s.db", 3, true});
  EXPECT_FALSE(apart.same_run);
  EXPECT_FALSE(apart.interleaved);
  EXPECT_NE(apart.note.find("separate runs"), std::string::npos);
}

}  // namespace
}  // namespace pipette::compare
