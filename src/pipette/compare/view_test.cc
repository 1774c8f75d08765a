// The comparison's formats against golden files, from one comparison of literal rows (a fixed
// bootstrap seed makes the intervals the same every time). After an intended change:
// PIPETTE_UPDATE_GOLDEN=1 build/pipette_unit_tests --gtest_filter='CompareView*'
#include "pipette/compare/view.h"

#include <gtest/gtest.h>

#include <sstream>

#include "pipette/report/command_output.h"
#include "pipette/report/table_formats.h"
#include "pipette/testing/golden.h"
#include "pipette/workload/registry.h"

namespace pipette::compare {
namespace {

using metrics::ResultRow;

ResultRow Row(const std::string& model, const std::string& test, const std::string& metric,
              const std::string& unit, std::vector<double> samples) {
  ResultRow r;
  metrics::CellFacts& c = r.EditCell();
  c.model = model;
  c.model_sha256 = "sha-" + model;
  c.quant = "Q4_1";
  c.runtime = "llama.cpp";
  c.runtime_version = "0.3.36";
  c.device = "Intel Xeon | lab";  // a name with Markdown's table character
  c.params = {{"threads", 2}};
  r.test = test;
  r.metric = metric;
  r.unit = unit;
  r.samples = std::move(samples);
  r.dataset_sha256 = test == "mc" ? "items" : "";
  return r;
}

Comparison Fixed() {
  std::vector<double> acc(20, 1.0), acc_lost(20, 1.0);
  for (int i = 0; i < 5; ++i) acc_lost[i] = 0.0;
  const std::vector<ResultRow> base = {
      Row("m", "tg128", "throughput", "t/s", {50.1, 49.8, 50.3, 50.0, 49.9}),
      Row("m", "pp512", "throughput", "t/s", {400, 402, 398}),
      Row("m", "memory", "peak_rss", "bytes", {2.0e8}), Row("m", "mc", "acc", "fraction", acc),
      Row("m", "ttft@64", "ttft", "ms", {30, 31, 29})};
  std::vector<ResultRow> cand = {
      Row("m", "tg128", "throughput", "t/s", {60.2, 59.9, 60.1, 60.4, 60.0}),
      Row("m", "pp512", "throughput", "t/s", {401, 399, 400}),
      Row("m", "memory", "peak_rss", "bytes", {2.2e8}), Row("m", "mc", "acc", "fraction", acc_lost),
      Row("m", "tg64", "throughput", "t/s", {70, 71, 72})};
  // The candidate's pp512 was measured while another Pipette measured: marked, and its gate
  // line undecided.
  cand[1].EditCell().untrusted = "measured while 1 other Pipette measured on the machine (pid 7)";
  CompareOptions o;
  o.gate = *ParseGate("tg128: -3%\npeak_rss: +5%\nmc_acc: -1 point\npp512: -5%\n", "release.gate");
  o.gate_file = "release.gate";
  auto c = Compare(workload::Figures(), base, cand, o);
  EXPECT_TRUE(c.ok()) << c.error().message;
  if (c)
    c->interleaving = DescribeInterleaving({"base.db", "/r/base.db", 1, false},
                                           {"cand.db", "/r/cand.db", 2, std::nullopt});
  return c ? *c : Comparison{};
}

TEST(CompareView, MarkdownGolden) {
  std::ostringstream out;
  WriteComparisonMarkdown(Fixed(), "base.db run 1", "cand.db run 2", out);
  testing::ExpectGolden(out.str(), "compare.md");
}

TEST(CompareView, JsonGolden) {
  testing::ExpectGolden(ComparisonJson(Fixed(), "base.db run 1", "cand.db run 2").dump(2) + "\n",
                        "compare.json");
}

// The figures as csv and jsonl write them: the JSON's columns (none of the Markdown's text-only
// ones), from the same table.
TEST(CompareView, FiguresAsCsvAndJsonlGolden) {
  const Comparison c = Fixed();
  for (const char* format : {"csv", "jsonl"}) {
    std::ostringstream out;
    report::RenderCommandOutput(format, {nullptr, nullptr, [&] { return ComparisonTable(c); }},
                                out);
    testing::ExpectGolden(out.str(), std::string("compare.") + format);
  }
  const report::Table t = ComparisonTable(c);
  std::ostringstream jsonl;
  report::WriteJsonlTable(t, jsonl);
  const nlohmann::json json = ComparisonJson(c, "a", "b");
  std::istringstream lines(jsonl.str());
  std::string line;
  for (const auto& f : json["figures"]) {
    ASSERT_TRUE(std::getline(lines, line));
    EXPECT_EQ(nlohmann::json::parse(line), f);
  }
}

TEST(CompareView, JsonFieldsAreTyped) {
  const nlohmann::ordered_json j = ComparisonJson(Fixed(), "a", "b");
  EXPECT_EQ(j["schema"], "pipette.compare");
  ASSERT_FALSE(j["figures"].empty());
  for (const auto& f : j["figures"]) {
    EXPECT_TRUE(f["baseline_n"].is_number_integer()) << f;
    EXPECT_TRUE(f["key"].is_object()) << f;
    EXPECT_TRUE(f["baseline"].is_number()) << f;
  }
  EXPECT_TRUE(j["gate_failed"].get<bool>());
  EXPECT_EQ(j["schema_version"], 4);
  EXPECT_EQ(j["gate"], "failed");
  EXPECT_TRUE(j["gate_inconclusive"].get<bool>());
  EXPECT_EQ(j["same_cells"], 0);
  bool undecided = false;
  for (const auto& f : j["figures"]) {
    if (f["figure"] != "test=pp512") continue;
    undecided = true;
    EXPECT_EQ(f["gate_outcome"], "inconclusive") << f;
    EXPECT_FALSE(f["gate_failed"].get<bool>()) << f;
    EXPECT_EQ(f["untrusted"],
              "candidate: measured while 1 other Pipette measured on the machine "
              "(pid 7)");
    EXPECT_EQ(f["gate_inconclusive"].get<std::string>().rfind("measured under a warning", 0), 0u);
  }
  EXPECT_TRUE(undecided) << j.dump(2);
}

}  // namespace
}  // namespace pipette::compare
