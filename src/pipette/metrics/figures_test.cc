#include "pipette/metrics/figures.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "pipette/testing/paths.h"

namespace pipette::metrics {
namespace {

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
    const auto specs = FiguresNamed(test + "." + metric);
    ASSERT_EQ(specs.size(), 1u) << test << "." << metric;
    EXPECT_EQ(specs[0]->unit, unit) << test << "." << metric;
    ++checked;
  }
  EXPECT_GE(checked, 5u);
}

TEST(Figures, ANameFindsItsFiguresByTheMostSpecificForm) {
  ASSERT_EQ(FiguresNamed("tg128").size(), 1u);  // the headline: throughput
  EXPECT_EQ(FiguresNamed("tg128")[0]->metric, "throughput");
  ASSERT_EQ(FiguresNamed("mc_acc").size(), 1u);
  EXPECT_EQ(FiguresNamed("mc_acc")[0]->kind, FigureKind::kProportion);
  EXPECT_GT(FiguresNamed("throughput").size(), 1u);  // pp, tg, sustained ...
  EXPECT_TRUE(FiguresNamed("peak_rs").empty());
  EXPECT_TRUE(FiguresNamed("tg.throughput").empty());  // no test without its size
  EXPECT_EQ(FiguresNamed("e2e@64+16").size(), 1u);
}

TEST(Figures, EachKindsRangeIsWhatItsValuesCanBe) {
  EXPECT_EQ(RangeOf(FigureKind::kProportion).lo, 0);
  EXPECT_EQ(RangeOf(FigureKind::kProportion).hi, 1);
  EXPECT_EQ(RangeOf(FigureKind::kAmount).lo, 0);
  EXPECT_EQ(RangeOf(FigureKind::kPerplexity).lo, 1);
  EXPECT_EQ(RangeOf(FigureKind::kPercentDrop).hi, 100);
  EXPECT_LT(RangeOf(FigureKind::kSigned).lo, -1e300);
  // Every fraction is a proportion; every size, time and rate an amount, but for a difference.
  for (const FigureSpec& s : KnownFigures()) {
    if (s.unit == "fraction" || s.unit == "probability") {
      EXPECT_EQ(s.kind, FigureKind::kProportion) << s.test << "." << s.metric;
    }
    if ((s.unit == "bytes" || s.unit == "ms" || s.unit == "t/s") && s.kind != FigureKind::kSigned) {
      EXPECT_EQ(s.kind, FigureKind::kAmount) << s.test << "." << s.metric;
    }
  }
}

}  // namespace
}  // namespace pipette::metrics
