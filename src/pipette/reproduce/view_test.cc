// The reproduce verdict's formats against golden files, from one verdict of literal rows. After an
// intended change: PIPETTE_UPDATE_GOLDEN=1 build/pipette_unit_tests --gtest_filter='ReproduceView*'
#include "pipette/reproduce/view.h"

#include <gtest/gtest.h>

#include <sstream>

#include "pipette/report/command_output.h"
#include "pipette/testing/golden.h"
#include "pipette/workload/registry.h"

namespace pipette::reproduce {
namespace {

using metrics::ResultRow;

ResultRow Row(const std::string& test, const std::string& metric, const std::string& unit,
              std::vector<double> samples, double value = 0) {
  ResultRow r;
  metrics::CellFacts& c = r.EditCell();
  c.model = "m|odel";  // a name with Markdown's table character
  c.model_sha256 = "sha-m";
  c.quant = "Q4_1";
  c.runtime = "llama.cpp";
  c.runtime_version = "0.3.36";
  r.test = test;
  r.metric = metric;
  r.unit = unit;
  r.samples = std::move(samples);
  r.value = value;
  return r;
}

Verdict Fixed() {
  static const std::vector<ResultRow> a = {
      Row("tg128", "throughput", "t/s", {50, 51, 49}), Row("load", "time", "ms", {800}),
      Row("ppl", "ppl", "", {20.5, 22.25}, 21.3), Row("mc", "acc", "fraction", {1, 0, 1}, 2.0 / 3)};
  static const std::vector<ResultRow> b = {Row("tg128", "throughput", "t/s", {40, 41, 39}),
                                           Row("load", "time", "ms", {950}),
                                           Row("ppl", "ppl", "", {20.5, 22.25}, 21.3)};
  const nlohmann::json env_a = {{"cpu_governor", "performance"}, {"pipette", "0.1.0 (abc)"}};
  const nlohmann::json env_b = {{"cpu_governor", "powersave"}, {"pipette", "0.1.0 (abc)"}};
  return Check(workload::Figures(), {&a, env_a}, {&b, env_b});
}

TEST(ReproduceView, MarkdownGolden) {
  std::ostringstream out;
  WriteReproduceMarkdown(Fixed(), "results/pipette.db run 1", "results/pipette.db run 2", out);
  testing::ExpectGolden(out.str(), "reproduce.md");
}

TEST(ReproduceView, JsonGolden) {
  testing::ExpectGolden(
      ReproduceJson(Fixed(), "results/pipette.db run 1", "results/pipette.db run 2").dump(2) + "\n",
      "reproduce.json");
}

// The figures as csv and jsonl write them: the JSON's rows, typed, from the same table.
TEST(ReproduceView, FiguresAsCsvAndJsonlGolden) {
  const Verdict v = Fixed();
  for (const char* format : {"csv", "jsonl"}) {
    std::ostringstream out;
    report::RenderCommandOutput(format, {nullptr, nullptr, [&] { return ReproduceTable(v); }}, out);
    testing::ExpectGolden(out.str(), std::string("reproduce.") + format);
  }
}

}  // namespace
}  // namespace pipette::reproduce
