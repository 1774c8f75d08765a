#include "pipette/metrics/figures.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "pipette/testing/paths.h"
#include "pipette/workload/registry.h"

namespace pipette::metrics {
namespace {

const FigureCatalogue& Figures() { return workload::Figures(); }

// Every figure of a real report is in the catalogue, in the unit the report gives it.
TEST(Figures, EveryFigureOfAReportIsKnownInItsUnit) {
  std::ifstream in(pipette::testing::SourceDir() + "/tests/golden/report.json");
  ASSERT_TRUE(in) << "tests/golden/report.json";
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json report = nlohmann::json::parse(text.str());
  size_t checked = 0;
  for (const nlohmann::json& r : report.at("results")) {
    const std::string test = r.at("test"), metric = r.at("metric"), unit = r.at("unit");
    if (metric == "all") continue;  // an n/a row for a whole phase
    const auto defs = Figures().Named(test + "." + metric);
    ASSERT_EQ(defs.size(), 1u) << test << "." << metric;
    EXPECT_EQ(defs[0]->unit, unit) << test << "." << metric;
    ResultRow row;
    row.test = test, row.metric = metric, row.unit = unit;
    EXPECT_EQ(Figures().Of(row), defs[0]) << test << "." << metric;
    ++checked;
  }
  EXPECT_GE(checked, 5u);
}

TEST(Figures, ANameFindsItsFiguresByTheMostSpecificForm) {
  ASSERT_EQ(Figures().Named("tg128").size(), 1u);  // the headline: throughput
  EXPECT_EQ(Figures().Named("tg128")[0]->metric, "throughput");
  ASSERT_EQ(Figures().Named("mc_acc").size(), 1u);
  EXPECT_EQ(Figures().Named("mc_acc")[0]->values, ValueKind::kProportion);
  EXPECT_GT(Figures().Named("throughput").size(), 1u);  // pp, tg, sustained ...
  EXPECT_TRUE(Figures().Named("peak_rs").empty());
  EXPECT_TRUE(Figures().Named("tg.throughput").empty());  // no test without its size
  EXPECT_EQ(Figures().Named("e2e@64+16").size(), 1u);
}

TEST(Figures, ATestFamilysPatternStandsForDigits) {
  EXPECT_TRUE(TestMatches("tg<N>", "tg128"));
  EXPECT_FALSE(TestMatches("tg<N>", "tg"));
  EXPECT_FALSE(TestMatches("tg<N>", "tg12x"));
  EXPECT_TRUE(TestMatches("e2e@<P>+<N>", "e2e@64+16"));
  EXPECT_FALSE(TestMatches("e2e@<P>+<N>", "e2e@64+"));
  EXPECT_FALSE(TestMatches("e2e@<P>+<N>", "e2e@+16"));
  EXPECT_TRUE(TestMatches("ppl", "ppl"));
  EXPECT_FALSE(TestMatches("pp<N>", "ppl"));
  EXPECT_FALSE(TestMatches("ppl", "ppl2"));
}

// A row's def is found by its test and metric in its unit: a figure given in another unit (a
// hostile report) has none, so nothing judges it by a meaning it does not have.
TEST(Figures, ARowInAnotherUnitHasNoDef) {
  ResultRow row;
  row.test = "tg128", row.metric = "throughput", row.unit = "t/s";
  ASSERT_NE(Figures().Of(row), nullptr);
  EXPECT_TRUE(Figures().IsHeadline(row));
  row.unit = "ms";
  EXPECT_EQ(Figures().Of(row), nullptr);
  EXPECT_FALSE(Figures().IsHeadline(row));
  row.test = "made_up", row.unit = "t/s";
  EXPECT_EQ(Figures().Of(row), nullptr);
}

// Each test family has one headline, and the catalogue names no figure twice.
TEST(Figures, EachTestHasOneHeadlineAndNoFigureIsDeclaredTwice) {
  std::map<std::string, int> headlines;
  std::set<std::pair<std::string, std::string>> seen;
  for (const FigureDef& d : Figures().defs()) {
    if (d.headline) ++headlines[d.test];
    EXPECT_TRUE(seen.insert({d.test, d.metric}).second) << d.test << "." << d.metric;
  }
  for (const char* t : {"pp<N>", "tg<N>", "ttft@<P>", "e2e@<P>+<N>", "sustained<N>"}) {
    EXPECT_EQ(headlines[t], 1) << t;
  }
}

TEST(Figures, EachKindsRangeIsWhatItsValuesCanBe) {
  EXPECT_EQ(RangeOf(ValueKind::kProportion).lo, 0);
  EXPECT_EQ(RangeOf(ValueKind::kProportion).hi, 1);
  EXPECT_EQ(RangeOf(ValueKind::kAmount).lo, 0);
  EXPECT_EQ(RangeOf(ValueKind::kPerplexity).lo, 1);
  EXPECT_EQ(RangeOf(ValueKind::kPercentDrop).hi, 100);
  EXPECT_LT(RangeOf(ValueKind::kSigned).lo, -1e300);
  // Every fraction is a proportion; every size, time and rate an amount, but for a difference;
  // every rate is better higher, every time and energy per token lower.
  for (const FigureDef& s : Figures().defs()) {
    if (s.unit == "fraction" || s.unit == "probability") {
      EXPECT_EQ(s.values, ValueKind::kProportion) << s.test << "." << s.metric;
    }
    if ((s.unit == "bytes" || s.unit == "ms" || s.unit == "t/s") &&
        s.values != ValueKind::kSigned) {
      EXPECT_EQ(s.values, ValueKind::kAmount) << s.test << "." << s.metric;
    }
    if (s.unit == "t/s") {
      EXPECT_EQ(s.better, Better::kHigher) << s.test << "." << s.metric;
    }
    if (s.unit == "ms" || s.unit == "J/token") {
      EXPECT_EQ(s.better, Better::kLower) << s.test << "." << s.metric;
    }
  }
}

// A list's modifiers set every def of its last Add, and Headline the last def alone.
TEST(Figures, AListsModifiersSetEveryDefOfItsLastAdd) {
  const std::vector<FigureDef> defs =
      FigureList()
          .Add("x<N>", {"a", "b"}, "ms", FigureKind::kSpeed, Better::kLower)
          .Score(ScoreGroup::kEfficiency, "<test>", Better::kLower, true)
          .CountsFailures()
          .Add("y", {"c", "d"}, "fraction", FigureKind::kQuality, Better::kHigher,
               ValueKind::kProportion, Statistic::kOverItems)
          .Headline()
          .SubsetNamesReference()
          .Take();
  ASSERT_EQ(defs.size(), 4u);
  for (int i : {0, 1}) {
    EXPECT_EQ(defs[i].score.group, ScoreGroup::kEfficiency) << i;
    EXPECT_FALSE(defs[i].score.higher) << i;
    EXPECT_TRUE(defs[i].score.same_tokenizer) << i;
    EXPECT_TRUE(defs[i].counts_failures) << i;
    EXPECT_FALSE(defs[i].subset_names_reference) << i;
    EXPECT_FALSE(defs[i].headline) << i;
  }
  for (int i : {2, 3}) {
    EXPECT_EQ(defs[i].score.group, ScoreGroup::kNone) << i;
    EXPECT_FALSE(defs[i].counts_failures) << i;
    EXPECT_TRUE(defs[i].subset_names_reference) << i;
    EXPECT_EQ(defs[i].statistic, Statistic::kOverItems) << i;
  }
  EXPECT_FALSE(defs[2].headline);
  EXPECT_TRUE(defs[3].headline);
}

// A subset that names the reference is the figure's whole set, and pairs without the reference
// cell's number or the tail mass (which differ between two runs of the same thing); a subject's
// subset is a part, and pairs as written.
TEST(Figures, ASubsetThatNamesTheReferencePairsWithoutItsCellNumber) {
  ResultRow kld;
  kld.test = "kld", kld.metric = "kld_mean", kld.unit = "nats";
  kld.subset = "lower bound: top-8 + tail, mean reference tail mass 0.0123; reference cell 3";
  EXPECT_TRUE(Figures().IsWholeSet(kld));
  EXPECT_EQ(Figures().PairingSubset(kld), "lower bound: top-8 + tail; reference cell");
  kld.subset = "full vocabulary; reference cell 12";
  EXPECT_EQ(Figures().PairingSubset(kld), "full vocabulary; reference cell");
  ResultRow mc;
  mc.test = "mc", mc.metric = "acc", mc.unit = "fraction", mc.subset = "reference cell 3";
  EXPECT_FALSE(Figures().IsWholeSet(mc));
  EXPECT_EQ(Figures().PairingSubset(mc), "reference cell 3");
  mc.subset = "";
  EXPECT_TRUE(Figures().IsWholeSet(mc));
}

// The report finds figures by the part they play, declared with them: every part has a figure,
// and the quality drawn by quantization comes in catalogue order (ppl, then kld).
TEST(Figures, TheReportFindsItsFiguresByThePartTheyPlay) {
  for (unsigned bit = 1; bit <= static_cast<unsigned>(Shown::kPerKchar); bit <<= 1) {
    EXPECT_FALSE(Figures().Showing(Shown(bit)).empty()) << "Shown bit " << bit;
  }
  const auto by_quant = Figures().Showing(Shown::kByQuant);
  ASSERT_EQ(by_quant.size(), 2u);
  EXPECT_EQ(by_quant[0]->test + "." + by_quant[0]->metric, "ppl.ppl");
  EXPECT_EQ(by_quant[1]->test + "." + by_quant[1]->metric, "kld.kld_mean");
  ResultRow row;
  row.test = "tg128", row.metric = "throughput", row.unit = "t/s";
  EXPECT_TRUE(Figures().Shows(row, Shown::kDecodeRate));
  EXPECT_TRUE(Figures().Shows(row, Shown::kRate));
  EXPECT_FALSE(Figures().Shows(row, Shown::kWindowRate));
  row.test = "pp512";
  EXPECT_FALSE(Figures().Shows(row, Shown::kDecodeRate));
  EXPECT_TRUE(Figures().Shows(row, Shown::kRate));
  row.test = "sustained60";
  EXPECT_TRUE(Figures().Shows(row, Shown::kWindowRate));
  EXPECT_FALSE(Figures().Shows(row, Shown::kRate));
  row.unit = "ms";  // another unit: no part
  EXPECT_FALSE(Figures().Shows(row, Shown::kWindowRate));
}

}  // namespace
}  // namespace pipette::metrics
