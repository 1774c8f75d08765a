#include "pipette/compare/compare.h"

#include <gtest/gtest.h>

namespace pipette::compare {
namespace {

using metrics::ResultRow;

ResultRow Row(const std::string& model, const std::string& test, const std::string& metric,
              const std::string& unit, std::vector<double> samples, int threads = 2) {
  ResultRow r;
  metrics::CellFacts& c = r.EditCell();
  c.model = model;
  c.model_sha256 = "sha-" + model;
  c.quant = "Q4_1";
  c.runtime = "llama.cpp";
  c.runtime_version = "b1";
  c.device = "Intel Xeon";
  c.params = {{"threads", threads}};
  r.test = test;
  r.metric = metric;
  r.unit = unit;
  r.samples = std::move(samples);
  return r;
}

const std::vector<double> kBase = {50.1, 49.8, 50.3, 50.0, 49.9};
const std::vector<double> kFast = {60.2, 59.9, 60.1, 60.4, 60.0};

TEST(Compare, RowsPairOnEveryKeyAndUnpairedOnesAreListed) {
  const std::vector<ResultRow> a = {Row("m", "tg128", "throughput", "t/s", kBase),
                                    Row("m", "pp512", "throughput", "t/s", kBase),
                                    Row("m", "tg128", "throughput", "t/s", kBase, 4)};
  const std::vector<ResultRow> b = {Row("m", "tg128", "throughput", "t/s", kFast),
                                    Row("m", "tg128", "throughput", "t/s", kBase, 8)};
  auto c = Compare(a, b, {});
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->figures.size(), 1u);
  EXPECT_EQ(c->figures[0].change.verdict, Verdict::kBetter);
  // Labelled by what tells figures apart (the test alone here); the rest said once.
  EXPECT_EQ(c->figures[0].label, "test=tg128");
  EXPECT_NE(c->common.find("model=m quant=Q4_1"), std::string::npos) << c->common;
  EXPECT_NE(c->common.find("threads=2"), std::string::npos) << c->common;
  EXPECT_EQ(c->baseline_only.size(), 2u);  // pp512, and tg128 at 4 threads
  ASSERT_EQ(c->candidate_only.size(), 1u);
  EXPECT_NE(c->candidate_only[0].find("threads=8"), std::string::npos);
}

TEST(Compare, AnIgnoredKeyPairsANewModelWithTheCurrentOne) {
  const std::vector<ResultRow> a = {Row("old", "tg128", "throughput", "t/s", kBase)};
  const std::vector<ResultRow> b = {Row("new", "tg128", "throughput", "t/s", kBase)};
  auto strict = Compare(a, b, {});
  ASSERT_TRUE(strict.ok());
  EXPECT_TRUE(strict->figures.empty());
  CompareOptions o;
  o.ignore = {"model"};
  auto across = Compare(a, b, o);
  ASSERT_TRUE(across.ok()) << across.error().message;
  ASSERT_EQ(across->figures.size(), 1u);
  EXPECT_EQ(across->figures[0].change.verdict, Verdict::kNoRealChange);
  EXPECT_EQ(across->ignored, std::vector<std::string>{"model"});
  EXPECT_EQ(across->figures[0].label.find("model="), std::string::npos);
  o.ignore = {"modle"};
  auto typo = Compare(a, b, o);
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.error().exit_code, 2);
  EXPECT_NE(typo.error().message.find("--ignore modle: not a key the rows pair on"),
            std::string::npos);
  EXPECT_NE(typo.error().message.find("did you mean 'model'"), std::string::npos)
      << typo.error().message;
}

TEST(Compare, FiguresWithoutADirectionAreNotCompared) {
  const std::vector<ResultRow> a = {Row("m", "tg128", "generated_tokens", "tokens", kBase),
                                    Row("m", "memory", "peak_rss", "bytes", {1e8, 1e8, 1e8})};
  auto c = Compare(a, a, {});
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->figures.size(), 1u);
  EXPECT_EQ(c->figures[0].metric, "peak_rss");
  EXPECT_EQ(c->figures[0].change.verdict, Verdict::kNoRealChange);
}

TEST(Compare, AGateLineFailsOnlyWhenWorseAndPastItsLimit) {
  const std::vector<ResultRow> base = {Row("m", "tg128", "throughput", "t/s", kFast),
                                       Row("m", "memory", "peak_rss", "bytes", {100, 100, 100})};
  const std::vector<ResultRow> slower = {Row("m", "tg128", "throughput", "t/s", kBase),
                                         Row("m", "memory", "peak_rss", "bytes", {101, 101, 101})};
  CompareOptions o;
  o.gate = *ParseGate("tg128: -3%\npeak_rss: +5%\n", "release.gate");
  o.gate_file = "release.gate";
  auto c = Compare(base, slower, o);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->figures.size(), 2u);
  for (const FigureComparison& f : c->figures) {
    ASSERT_TRUE(f.gate.has_value()) << f.label;
    if (f.metric == "throughput") {
      EXPECT_EQ(f.change.verdict, Verdict::kWorse);
      EXPECT_TRUE(f.gate_failed);  // 17% slower, past -3%
    } else {
      EXPECT_EQ(f.change.verdict, Verdict::kWorse);  // +1%, no noise at all
      EXPECT_FALSE(f.gate_failed);                   // but within +5%
    }
  }
  EXPECT_TRUE(c->gate_failed);
  // Faster passes the same gate.
  auto faster = Compare(slower, base, o);
  ASSERT_TRUE(faster.ok());
  EXPECT_FALSE(faster->gate_failed);
  // A gate line naming no figure is bad input, with the file and line.
  o.gate = *ParseGate("tg128: -3%\ntg129: -3%\n", "release.gate");
  auto bad = Compare(base, slower, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().exit_code, 2);
  EXPECT_EQ(bad.error().message,
            "release.gate:2:1: 'tg129' names no figure this comparison has (did you mean "
            "'tg128'?)");
}

TEST(Compare, TwoRowsOfOneKeyOnASideAreAmbiguousNotAveraged) {
  const std::vector<ResultRow> a = {Row("m", "tg128", "throughput", "t/s", kBase),
                                    Row("m", "tg128", "throughput", "t/s", kFast)};
  const std::vector<ResultRow> b = {Row("m", "tg128", "throughput", "t/s", kBase)};
  auto c = Compare(a, b, {});
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->figures.empty());
  EXPECT_EQ(c->ambiguous.size(), 1u);
}

}  // namespace
}  // namespace pipette::compare
