// The recipe of docs/architecture.md "Adding a figure": a made-up figure, `warm.ready_ms` (a test
// fixture, in this test's catalogue only: a time to be ready, lower is better, the median of
// repetitions, scored for engineering), is compared by compare with its direction and statistic,
// checked by reproduce by its kind, named by a select constraint and scored by select, all from
// its FigureDef; without the def, compare does not compare it and select refuses to name it.
// Nothing outside this file is written for it (its rows are what a workload's Derive would add).
#include <gtest/gtest.h>

#include "pipette/compare/compare.h"
#include "pipette/metrics/cell_figures.h"
#include "pipette/metrics/figures.h"
#include "pipette/reproduce/reproduce.h"
#include "pipette/select/constraint.h"
#include "pipette/select/select.h"
#include "pipette/stats/stats.h"

namespace pipette::metrics {
namespace {

// The made-up figure: its whole definition.
std::vector<FigureDef> WarmFigures() {
  return FigureList()
      .Add("warm", {"ready_ms"}, "ms", FigureKind::kSpeed, Better::kLower, ValueKind::kAmount,
           Statistic::kMedianOfRepetitions)
      .Score(ScoreGroup::kEngineering, "ready_ms", Better::kLower)
      .Take();
}

FigureCatalogue Catalogue(bool with_warm) {
  std::vector<FigureDef> defs = with_warm ? WarmFigures() : std::vector<FigureDef>{};
  for (FigureDef& d : CellFigures()) defs.push_back(std::move(d));
  return FigureCatalogue(std::move(defs), {});
}

// One cell's warm.ready_ms row with `samples`, of model `model` in cell `index`.
ResultRow Warm(const std::string& model, int index, std::vector<double> samples) {
  ResultRow r;
  CellFacts& c = r.EditCell();
  c.run_id = 1;
  c.cell_index = index;
  c.model = model;
  c.model_sha256 = "sha-" + model;
  c.quant = "Q4_1";
  c.runtime = "llama.cpp";
  c.device = "lab";
  c.cell_status = "ok";
  r.test = "warm";
  r.metric = "ready_ms";
  r.unit = "ms";
  r.summary = stats::Summarize(samples);
  r.value = r.summary.median;
  r.samples = std::move(samples);
  return r;
}

TEST(FigureRecipe, AMadeUpFigureIsComparedByItsDirection) {
  // Skewed samples: their medians (100, 50) are not their means.
  const std::vector<ResultRow> base = {Warm("m", 1, {100, 101, 99, 100, 160})};
  const std::vector<ResultRow> faster = {Warm("m", 1, {50, 51, 49, 50, 20})};
  auto c = compare::Compare(Catalogue(true), base, faster, {});
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->figures.size(), 1u);
  const compare::Change& change = c->figures[0].change;
  EXPECT_EQ(change.verdict, compare::Verdict::kBetter);  // lower is better
  EXPECT_EQ(change.of, compare::Change::Of::kRatio);
  EXPECT_FALSE(change.measured_once);
  ASSERT_TRUE(change.ratio.has_value());
  EXPECT_DOUBLE_EQ(*change.ratio, 0.5);  // a ratio of medians
  // Without its def, no rule: not compared.
  auto none = compare::Compare(Catalogue(false), base, faster, {});
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_TRUE(none->figures.empty());
}

TEST(FigureRecipe, AMadeUpFigureIsReproducedByItsKind) {
  const std::vector<ResultRow> a = {Warm("m", 1, {100, 101, 99})};
  const std::vector<ResultRow> b = {Warm("m", 1, {100, 100, 101})};
  const reproduce::Verdict v = reproduce::Check(Catalogue(true), {&a, nlohmann::json::object()},
                                                {&b, nlohmann::json::object()});
  ASSERT_EQ(v.figures.size(), 1u);
  EXPECT_EQ(v.figures[0].kind, reproduce::FigureCheck::Kind::kSpeed);  // median within noise
  EXPECT_TRUE(v.figures[0].reproduced()) << v.figures[0].why;
}

TEST(FigureRecipe, AMadeUpFigureIsNamedAndScoredBySelect) {
  const FigureCatalogue with = Catalogue(true), without = Catalogue(false);
  EXPECT_TRUE(select::ParseConstraint("warm.ready_ms <= 80", "p.yaml", 1, 1, &with).ok());
  EXPECT_FALSE(select::ParseConstraint("warm.ready_ms <= 80", "p.yaml", 1, 1, &without).ok());
  select::Profile p;
  p.name = "ready";
  p.weights = {.quality = 0, .efficiency = 0, .robustness = 0, .engineering = 1};
  auto s =
      select::Select(with, {Warm("slow", 1, {100, 100, 100}), Warm("quick", 2, {60, 60, 60})}, p);
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->ranked.size(), 2u) << s->vetoed.size() << " vetoed";
  EXPECT_EQ(s->ranked[0].name.rfind("quick", 0), 0u) << s->ranked[0].name;
  bool scored = false;
  for (const select::Scored& f : s->ranked[0].figures) scored = scored || f.name == "ready_ms";
  EXPECT_TRUE(scored);
}

}  // namespace
}  // namespace pipette::metrics
