#include "pipette/select/select.h"

#include <gtest/gtest.h>

#include <tuple>

#include "pipette/select/select_rows_testing.h"
#include "pipette/workload/registry.h"

namespace pipette::select {
namespace {

using fixture::Fixture;
using fixture::TestProfile;
using metrics::ResultRow;

TEST(Select, ConstraintsVetoWithByHowMuchAndTheRestRankTiesByName) {
  auto s = Select(workload::Figures(), Fixture(), TestProfile());
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->ranked.size(), 2u);
  // big Q4_K_M: the best quality (1) and the worst efficiency (0); small Q4_0 the reverse: both
  // score 0.5, and the tie breaks by name.
  EXPECT_EQ(s->ranked[0].name, "big Q4_K_M llama.cpp");
  EXPECT_EQ(s->ranked[1].name, "small Q4_0 llama.cpp");
  EXPECT_DOUBLE_EQ(s->ranked[0].total, 0.5);
  EXPECT_DOUBLE_EQ(s->ranked[1].total, 0.5);
  EXPECT_DOUBLE_EQ(*s->ranked[0].groups[size_t(Group::kQuality)], 1.0);
  EXPECT_DOUBLE_EQ(*s->ranked[0].groups[size_t(Group::kEfficiency)], 0.0);
  EXPECT_TRUE(s->ranked[0].pareto);
  EXPECT_TRUE(s->ranked[1].pareto);
  // F16 broke two constraints, the board's cell one.
  ASSERT_EQ(s->vetoed.size(), 3u);
  EXPECT_EQ(s->vetoed[0].candidate, "big F16 llama.cpp");
  EXPECT_EQ(s->vetoed[0].constraint, "peak_rss <= 1.5GiB");
  EXPECT_EQ(s->vetoed[0].by, "1.00 GiB over");
  EXPECT_EQ(s->vetoed[1].constraint, "tg128 >= 15 t/s");
  EXPECT_EQ(s->vetoed[1].by, "6.0 t/s under");
  EXPECT_EQ(s->vetoed[2].device, "board: Cortex-A76");
  // No candidate measured a TTFT: not checked, and said so.
  EXPECT_EQ(s->unchecked, std::vector<std::string>{"ttft@512 <= 800ms"});
  EXPECT_NE(s->recommendation.find("Not every constraint was checked: no candidate measured the "
                                   "figure of ttft@512 <= 800ms, so this choice may break it."),
            std::string::npos)
      << s->recommendation;
  EXPECT_NE(s->recommendation.find("choose big Q4_K_M llama.cpp on Intel Xeon"), std::string::npos)
      << s->recommendation;
  EXPECT_NE(s->recommendation.find("2 of 4 candidates were vetoed"), std::string::npos);
}

TEST(Select, ADecisionTreeHasABranchPerDevice) {
  auto s = Select(workload::Figures(), Fixture(), TestProfile());
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->tree.size(), 2u);
  EXPECT_EQ(s->tree[0].device, "Intel Xeon");
  EXPECT_EQ(s->tree[0].best, "big Q4_K_M llama.cpp");
  EXPECT_EQ(s->tree[0].candidates, 3u);
  EXPECT_EQ(s->tree[0].vetoed, 1u);
  EXPECT_EQ(s->tree[1].device, "board: Cortex-A76");
  EXPECT_FALSE(s->tree[1].best.has_value());  // nothing fits there
  // A lenient bound lets the board's cell through: its branch names it.
  Profile lenient = TestProfile();
  lenient.constraints[1] = *ParseConstraint("tg128 >= 8 t/s", "p.yaml", 1, 1, &workload::Figures());
  auto l = Select(workload::Figures(), Fixture(), lenient);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->tree[1].best, "small Q4_0 llama.cpp");
}

TEST(Select, WhenNothingFitsTheNearestMissIsNamed) {
  Profile tight = TestProfile();
  tight.constraints[0] =
      *ParseConstraint("peak_rss <= 100MiB", "p.yaml", 1, 1, &workload::Figures());
  auto s = Select(workload::Figures(), Fixture(), tight);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->ranked.empty());
  EXPECT_NE(s->recommendation.find("No candidate meets every constraint of test. The nearest, "),
            std::string::npos)
      << s->recommendation;
}

// Two models with other tokenizers: ppl per token does not compare them, and tg is scored by its
// time per 1000 characters; a failed cell is vetoed, not scored.
TEST(Select, UnlikeFiguresAreLeftOutWithANoteAndAFailedCellIsVetoed) {
  std::vector<ResultRow> rows;
  int index = 0;
  for (auto [model, density, ppl] : {std::tuple{"a", 250.0, 12.0}, std::tuple{"b", 210.0, 15.0}}) {
    std::vector<ResultRow> cell =
        fixture::Cell(index++, model, "Q4_0", {20, 20, 20}, 1e9, std::nullopt);
    ResultRow d = cell[0];
    d.test = "ppl";
    d.metric = "tok_per_kchar";
    d.unit = "tokens/kchar";
    d.value = density;
    ResultRow p = d;
    p.metric = "ppl";
    p.unit = "";
    p.value = ppl;
    ResultRow k = cell[0];
    k.metric = "ms_per_kchar";
    k.unit = "ms";
    k.value = 50 * density;  // 20 t/s: 50 ms a token
    cell.insert(cell.end(), {d, p, k});
    rows.insert(rows.end(), cell.begin(), cell.end());
  }
  std::vector<ResultRow> failed = fixture::Cell(index, "c", "Q4_0", {30, 30, 30}, 1e9, 0.9);
  for (ResultRow& r : failed) r.EditCell().cell_status = "failed";
  rows.insert(rows.end(), failed.begin(), failed.end());
  Profile p;
  p.name = "p";
  auto s = Select(workload::Figures(), rows, p);
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->ranked.size(), 2u);
  ASSERT_EQ(s->notes.size(), 2u);
  EXPECT_EQ(s->notes[0],
            "ppl is left out of the score: the candidates' tokenizers differ (210 to 250 tokens "
            "per 1000 characters of the corpus), so their ppl figures are per different tokens");
  EXPECT_EQ(
      s->notes[1],
      "tg128 is scored by tg128.ms_per_kchar, which compares tokenizers alike, not by its t/s");
  // b writes 1000 characters faster (fewer tokens at the same t/s): the better efficiency.
  EXPECT_EQ(s->ranked[0].name, "b Q4_0 llama.cpp");
  for (const Scored& f : s->ranked[0].figures) {
    EXPECT_NE(f.name, "ppl");
    EXPECT_NE(f.name, "tg128");
  }
  ASSERT_EQ(s->vetoed.size(), 1u);
  EXPECT_EQ(s->vetoed[0].candidate, "c Q4_0 llama.cpp");
  EXPECT_EQ(s->vetoed[0].by, "it did not (failed)");
}

TEST(Select, AnAmbiguousFigureOrABoundInTheWrongUnitIsAnError) {
  std::vector<ResultRow> rows = Fixture();
  ResultRow pp = rows[0];
  pp.test = "pp512";
  rows.push_back(pp);
  Profile p = TestProfile();
  p.constraints = {*ParseConstraint("throughput >= 5 t/s", "p.yaml", 4, 9, &workload::Figures())};
  auto a = Select(workload::Figures(), rows, p);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().exit_code, 2);
  EXPECT_EQ(a.error().message,
            "p.yaml:4:9: 'throughput >= 5 t/s': 'throughput' names several figures of a cell "
            "(tg128.throughput, pp512.throughput): name one as test.metric");
  // ParseConstraint refuses a bound in the wrong unit for every figure of the name; a row in
  // another unit than the catalogue's (an older store) is still refused here.
  Constraint ms = *ParseConstraint("ttft@512 <= 800ms", "p.yaml", 4, 9, &workload::Figures());
  ms.figure = "peak_rss";
  ms.text = "peak_rss <= 800ms";
  p.constraints = {ms};
  auto u = Select(workload::Figures(), rows, p);
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.error().message,
            "p.yaml:4:9: 'peak_rss <= 800ms': peak_rss is in bytes, the bound in ms");
}

// The only candidate left "meets every constraint" only when every constraint was checked.
TEST(Select, TheOnlyCandidateLeftIsNeverSaidToMeetAConstraintNotChecked) {
  Profile p = TestProfile();
  p.constraints[1] = *ParseConstraint("tg128 >= 18 t/s", "p.yaml", 1, 1, &workload::Figures());
  auto s = Select(workload::Figures(), Fixture(), p);
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->ranked.size(), 1u);
  EXPECT_EQ(s->recommendation.find("meets every constraint."), std::string::npos)
      << s->recommendation;
  EXPECT_NE(s->recommendation.find("the only candidate that meets every constraint checked"),
            std::string::npos)
      << s->recommendation;
  p.constraints.pop_back();  // the TTFT no candidate measured
  auto all = Select(workload::Figures(), Fixture(), p);
  ASSERT_TRUE(all.ok());
  EXPECT_NE(all->recommendation.find("the only candidate that meets every constraint."),
            std::string::npos)
      << all->recommendation;
}

}  // namespace
}  // namespace pipette::select
