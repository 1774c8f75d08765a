#include "pipette/reproduce/reproduce.h"

#include <gtest/gtest.h>

#include "pipette/workload/registry.h"

namespace pipette::reproduce {
namespace {

using metrics::ResultRow;
using nlohmann::json;

ResultRow Row(const std::string& test, const std::string& metric, const std::string& unit,
              std::vector<double> samples, double value = 0) {
  ResultRow r;
  metrics::CellFacts& c = r.EditCell();
  c.model = "m";
  c.model_sha256 = "sha-m";
  c.quant = "Q4_1";
  c.runtime = "llama.cpp";
  c.runtime_version = "0.3.36";
  c.runtime_build = {{"llama_cpp_commit", "abc"}};
  r.test = test;
  r.metric = metric;
  r.unit = unit;
  r.samples = std::move(samples);
  r.value = value;
  r.dataset_sha256 = test == "ppl" ? "corpus" : "";
  return r;
}

std::vector<ResultRow> Original() {
  return {Row("tg128", "throughput", "t/s", {50.0, 51.0, 49.0}),
          Row("memory", "peak_rss", "bytes", {2e8}),
          Row("ppl", "ppl", "", {20.5, 22.25, 19.125}, 20.6),
          Row("tg128", "generated_tokens", "tokens", {128, 128, 128})};
}

const json kEnv = {{"cpu_model", "Intel Xeon"},
                   {"cpu_governor", "performance"},
                   {"load_avg_1", 0.2},
                   {"pipette", "0.1.0 (c0ffee)"}};

TEST(Reproduce, TheSameFiguresReproduceAndFactsAreNotChecked) {
  const auto a = Original();
  std::vector<ResultRow> b = Original();
  b[0].samples = {50.5, 49.5, 50.2};  // +0.4%: within ±3%
  json env = kEnv;
  env["load_avg_1"] = 0.6;  // less than half a core more: the same load
  const Verdict v = Check(workload::Figures(), {&a, kEnv}, {&b, env});
  ASSERT_EQ(v.figures.size(), 3u);  // the token count is a fact, not checked
  EXPECT_TRUE(v.all_reproduced());
  EXPECT_TRUE(v.environment.empty());
  EXPECT_EQ(v.figures[2].kind, FigureCheck::Kind::kQuality);
  EXPECT_EQ(v.figures[2].why, "bit-identical (3 units)");
  EXPECT_EQ(v.figures[0].label, "cell 1 m Q4_1 tg128");
}

TEST(Reproduce, AQualityFigureOffByOneBitAndASlowerMedianDoNotReproduceAndSayWhy) {
  const auto a = Original();
  std::vector<ResultRow> b = Original();
  b[0].samples = {40.0, 41.0, 39.0};     // -20%
  b[2].samples[1] = 22.250000000000004;  // one unit, one bit
  b[2].EditCell().runtime_build = {{"llama_cpp_commit", "def"}};
  json env = kEnv;
  env["cpu_governor"] = "powersave";
  env["load_avg_1"] = 1.5;
  const Verdict v = Check(workload::Figures(), {&a, kEnv}, {&b, env});
  EXPECT_FALSE(v.all_reproduced());
  EXPECT_EQ(v.reproduced, 1u);  // peak_rss
  EXPECT_FALSE(v.figures[0].reproduced());
  EXPECT_NE(v.figures[0].why.find("median -20.0%, past the noise band ±3.0%"), std::string::npos)
      << v.figures[0].why;
  EXPECT_NE(v.figures[0].why.find("governor"), std::string::npos) << v.figures[0].why;
  EXPECT_FALSE(v.figures[2].reproduced());
  EXPECT_NE(v.figures[2].why.find("not bit-identical: unit 2 of 3 differs"), std::string::npos)
      << v.figures[2].why;
  // A quality figure is explained by what changes the arithmetic (the build), not by the load.
  EXPECT_NE(v.figures[2].why.find("runtime"), std::string::npos) << v.figures[2].why;
  EXPECT_EQ(v.figures[2].why.find("governor"), std::string::npos) << v.figures[2].why;
  ASSERT_EQ(v.environment.size(), 3u);  // runtime, governor, load
  EXPECT_EQ(v.environment[0].what, "runtime");
  EXPECT_EQ(v.environment[1].original, "performance");
  EXPECT_EQ(v.environment[2].now, "1.5");
}

TEST(Reproduce, AFigureTheRunAgainLacksIsMissingAndAnotherModelFileIsNamed) {
  const auto a = Original();
  std::vector<ResultRow> b = {Original()[0], Original()[1]};
  b[1].EditCell().model_sha256 = "sha-other";
  const Verdict v = Check(workload::Figures(), {&a, kEnv}, {&b, kEnv});
  ASSERT_EQ(v.missing.size(), 1u);
  EXPECT_EQ(v.missing[0], "cell 1 m Q4_1 ppl ppl: not measured again");
  EXPECT_FALSE(v.all_reproduced());
  bool model = false;
  for (const Difference& d : v.environment) {
    model = model || (d.what == "model file of cell 1 (SHA-256)" && d.now == "sha-other");
  }
  EXPECT_TRUE(model);
  // The cell ran another file: none of its figures reproduced, whatever they are.
  for (const FigureCheck& f : v.figures) {
    EXPECT_FALSE(f.reproduced()) << f.label;
    EXPECT_NE(f.why.find("another model file"), std::string::npos) << f.why;
  }
}

TEST(Reproduce, ATimeMeasuredOnceACellCannotBeJudgedAndTopKKldPairsAcrossCells) {
  ResultRow load = Row("load", "time", "ms", {812.0});
  ResultRow kld = Row("kld", "kld_mean", "nats", {0.01, 0.02});
  kld.subset = "lower bound: top-40 + tail, mean reference tail mass 0.0123; reference cell 7";
  const std::vector<ResultRow> a = {load, kld};
  load.samples = {1020.0};  // +26%: a cold page cache, say
  kld.subset = "lower bound: top-40 + tail, mean reference tail mass 0.0123; reference cell 19";
  const std::vector<ResultRow> b = {load, kld};
  const Verdict v = Check(workload::Figures(), {&a, kEnv}, {&b, kEnv});
  ASSERT_EQ(v.figures.size(), 2u);
  EXPECT_EQ(v.figures[0].outcome, FigureCheck::Outcome::kCannotSay) << v.figures[0].why;
  EXPECT_TRUE(v.figures[1].reproduced()) << v.figures[1].why;
  EXPECT_TRUE(v.missing.empty());
  EXPECT_TRUE(v.all_reproduced());
  EXPECT_EQ(v.reproduced, 1u);
}

// A re-run measured while another Pipette measured: the count is an environment difference, and
// each of the cell's figures says it is not to be trusted.
TEST(Reproduce, CellsMeasuredUnderAWarningAreAnEnvironmentDifference) {
  const auto a = Original();
  std::vector<ResultRow> b = Original();
  b[0].samples = {14.7, 15.0, 14.4};  // 3.4x slower
  for (ResultRow& r : b) {
    r.EditCell().untrusted = "measured while 1 other Pipette measured on the machine (pid 9)";
  }
  json env_a = kEnv, env_b = kEnv;
  env_a["other_pipette_cells"] = 0;
  env_b["other_pipette_cells"] = 1;
  env_a["not_ready_cells"] = env_b["not_ready_cells"] = 0;
  const Verdict v = Check(workload::Figures(), {&a, env_a}, {&b, env_b});
  ASSERT_EQ(v.environment.size(), 1u);
  EXPECT_EQ(v.environment[0].what, "cells measured while another Pipette measured");
  EXPECT_EQ(v.environment[0].original, "0");
  EXPECT_EQ(v.environment[0].now, "1");
  ASSERT_FALSE(v.figures.empty());
  EXPECT_EQ(v.figures[0].outcome, FigureCheck::Outcome::kNo);
  EXPECT_NE(v.figures[0].why.find("untrusted (now): measured while 1 other Pipette"),
            std::string::npos)
      << v.figures[0].why;
  EXPECT_NE(v.figures[0].why.find("differs from the original's: cells measured while another "
                                  "Pipette measured"),
            std::string::npos)
      << v.figures[0].why;
}

}  // namespace
}  // namespace pipette::reproduce
