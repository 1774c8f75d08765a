// The HTML page's sections and chart specifications on a fixed set of rows: the specs against
// tests/golden/report.charts.json (PIPETTE_UPDATE_GOLDEN=1 build/pipette_unit_tests
// --gtest_filter='*Golden*' rewrites it), the Pareto frontier on known figures, and the sections
// with nothing to show.
#include "pipette/report/page.h"

#include <gtest/gtest.h>

#include <set>

#include "pipette/runtime/registry.h"
#include "pipette/testing/golden.h"
#include "pipette/workload/registry.h"

namespace pipette::report {
namespace {

using json = nlohmann::ordered_json;

struct CellSpec {
  int64_t id;
  std::string quant;
  int64_t size;
  int threads;
  int depth;
  std::string base = "smol";
  int n_batch = 0;  // 0: not set
};

metrics::ResultRow Row(const CellSpec& c, const std::string& test, const std::string& metric,
                       const std::string& unit, std::vector<double> samples) {
  metrics::ResultRow r;
  auto& f = r.EditCell();
  f.run_id = 1;
  f.cell_id = c.id;
  f.cell_index = int(c.id - 1);
  f.cell_status = "ok";
  f.model = c.base + ":" + c.quant;
  f.base_model = c.base;
  f.family = c.base == "smol" ? "SmolLM2 135M" : "Tiny 50M";  // the files' general.name
  f.model_sha256 = "sha-" + c.base + c.quant;
  f.model_file_size = c.size;
  f.quant = c.quant;
  f.runtime = "llama.cpp";
  f.runtime_version = "0.3.36";
  f.device = "Test CPU";
  f.device_id = "fp01";
  f.params = {{"threads", c.threads}, {"depth", c.depth}};
  if (c.n_batch) f.params["n_batch"] = c.n_batch;
  r.test = test;
  r.metric = metric;
  r.unit = unit;
  r.samples = std::move(samples);
  r.summary = stats::Summarize(r.samples);
  r.value = r.summary.median;
  return r;
}

// Two quantizations at one and two threads (tg16 speeds 20, 35, 30, 50 t/s; ppl 10 and 11; mc
// acc 0.75 and 0.5), a fifth cell at depth 512, a sustained run, another model, two batch sizes.
ReportData Fixed() {
  ReportData d;
  const std::vector<CellSpec> cells = {{1, "Q8_0", 150 << 20, 1, 0},
                                       {2, "Q8_0", 150 << 20, 2, 0},
                                       {3, "Q4_K_M", 100 << 20, 1, 0},
                                       {4, "Q4_K_M", 100 << 20, 2, 0}};
  const double tg[] = {20, 35, 30, 50};
  for (size_t i = 0; i < cells.size(); ++i) {
    const CellSpec& c = cells[i];
    const bool q8 = c.quant == "Q8_0";
    d.rows.push_back(Row(c, "pp64", "throughput", "t/s", {400.0 * c.threads, 410.0 * c.threads}));
    d.rows.push_back(Row(c, "tg16", "throughput", "t/s", {tg[i] - 1, tg[i], tg[i] + 1}));
    d.rows.push_back(Row(c, "tg16", "kv_bytes_used", "bytes", {1 << 20}));
    d.rows.push_back(Row(c, "memory", "peak_rss", "bytes", {double(c.size + (40 << 20))}));
    metrics::ResultRow ppl = Row(c, "ppl", "ppl", "", {q8 ? 9.5 : 10.5, q8 ? 10.5 : 11.5});
    ppl.value = q8 ? 10 : 11;
    ppl.std_error = 0.25;
    d.rows.push_back(ppl);
    if (!q8) d.rows.push_back(Row(c, "kld", "kld_mean", "nats", {0.02, 0.04}));
    metrics::ResultRow acc = Row(c, "mc", "acc", "fraction", {1, 1, 0, q8 ? 1.0 : 0.0});
    acc.value = q8 ? 0.75 : 0.5;
    d.rows.push_back(acc);
  }
  // Another model beside smol's Q8_0 at one thread: the model varies alone.
  const CellSpec tiny = {7, "Q8_0", 50 << 20, 1, 0, "tiny"};
  d.rows.push_back(Row(tiny, "tg16", "throughput", "t/s", {60, 61, 62}));
  d.rows.push_back(Row(tiny, "memory", "peak_rss", "bytes", {double(90 << 20)}));
  // Two batch sizes of one configuration.
  for (int b : {256, 512}) {
    const CellSpec batch = {8 + b / 512, "Q8_0", 150 << 20, 2, 0, "smol", b};
    d.rows.push_back(Row(batch, "pp64", "throughput", "t/s", {700.0 + b / 4, 710.0 + b / 4}));
  }
  const CellSpec deep = {5, "Q8_0", 150 << 20, 2, 512};
  d.rows.push_back(Row(deep, "tg16", "throughput", "t/s", {28, 29, 30}));
  d.rows.push_back(Row(deep, "tg16", "kv_bytes_used", "bytes", {9 << 20}));
  d.rows.push_back(Row(deep, "memory", "peak_rss", "bytes", {double(200 << 20)}));
  const CellSpec hot = {6, "Q4_K_M", 100 << 20, 2, 0};
  d.rows.push_back(Row(hot, "sustained30", "throughput", "t/s", {50, 46, 41}));
  store::CellRecord cell;
  cell.id = 1;
  cell.run_id = 1;
  cell.model_name = "smol:Q8_0";
  cell.model_sha256 = "sha-Q8_0";
  cell.model_file_size = 150 << 20;
  cell.model_source = "bundled";
  cell.status = "ok";
  d.cells.push_back(cell);
  d.environments.push_back({1, "fp01", {{"cpu_model", "Test CPU"}}});
  return d;
}

std::vector<PageSection> Page(const ReportData& d) {
  return BuildPage(d, {}, runtime::Registry().Params(), workload::Figures());
}

const PageSection& Section(const std::vector<PageSection>& page, const std::string& id) {
  for (const PageSection& s : page) {
    if (s.id == id) return s;
  }
  ADD_FAILURE() << "no section " << id;
  return page.front();
}

const Chart* FindChart(const std::vector<PageSection>& page, const std::string& id) {
  for (const PageSection& s : page) {
    for (const Chart& c : s.charts) {
      if (c.id == id) return &c;
    }
  }
  return nullptr;
}

TEST(PageGolden, ChartSpecifications) {
  testing::ExpectGolden(ChartSpecs(Page(Fixed())).dump(2) + "\n", "report.charts.json");
}

TEST(Page, TheFrontierHoldsTheCellsNothingBeatsOnSpeedAndPpl) {
  const auto page = Page(Fixed());
  const Chart* c = FindChart(page, "speed-ppl-ppl");
  ASSERT_NE(c, nullptr);
  // (20, 10) loses to (35, 10) and (30, 11) to (50, 11); ppl is lower-better.
  std::map<double, bool> pareto;
  for (const json& v : c->spec["data"]["values"]) pareto[v["x"]] = v["pareto"];
  EXPECT_EQ(pareto, (std::map<double, bool>{{20, false}, {30, false}, {35, true}, {50, true}}));
  // Against memory (lower-better): the two quantizations' cells tie on memory within each, so
  // both cells of each are on it: nothing beats them on both axes.
  const Chart* m = FindChart(page, "memory-ppl-ppl");
  ASSERT_NE(m, nullptr);
  for (const json& v : m->spec["data"]["values"]) EXPECT_TRUE(v["pareto"].get<bool>()) << v;
}

TEST(Page, EverySectionHasChartsOrSaysWhyNot) {
  const auto page = Page(Fixed());
  std::set<std::string> ids;
  for (const PageSection& s : page) {
    EXPECT_NE(s.charts.empty() && s.tables.empty(), s.empty.empty()) << s.id;
    for (const Chart& c : s.charts) {
      EXPECT_TRUE(ids.insert(c.id).second) << "two charts named " << c.id;
      EXPECT_FALSE(c.spec["data"]["values"].empty()) << c.id;
      EXPECT_EQ(c.spec["$schema"], "https://vega.github.io/schema/vega-lite/v6.json");
    }
  }
  EXPECT_FALSE(Section(page, "speed-threads").charts.empty());
  EXPECT_FALSE(Section(page, "depth").charts.empty());
  EXPECT_FALSE(Section(page, "sustained").charts.empty());
  EXPECT_FALSE(Section(page, "controlled").tables.empty());
  EXPECT_FALSE(Section(page, "speed-n_batch").charts.empty());
  // Every kind of chart is in the golden file (report.charts.json).
  for (const char* id :
       {"vary-model", "vary-quant", "speed-ppl-ppl", "memory-ppl-ppl", "speed-mc-acc",
        "speed-kld-kld-mean", "speed-by-threads", "speed-by-n-batch", "ppl-by-quant",
        "kld-by-quant", "depth-speed", "depth-memory", "sustained", "samples-tg16-throughput"}) {
    EXPECT_NE(FindChart(page, id), nullptr) << id;
  }

  // One cell: nothing to hold fixed, no sweep, no depth, no sustained run, one sample each.
  ReportData one;
  one.rows.push_back(Row({1, "Q8_0", 1 << 20, 1, 0}, "tg16", "throughput", "t/s", {10}));
  for (const PageSection& s : Page(one)) {
    EXPECT_TRUE(s.charts.empty()) << s.id;
    EXPECT_FALSE(s.empty.empty()) << s.id;
  }
  // What fills each, in a few words, where an experiment setting does.
  const auto empty = Page(one);
  EXPECT_EQ(Section(empty, "speed-threads").fill, "threads: [1, 2, 4]");
  EXPECT_EQ(Section(empty, "speed-n_batch").fill, "n_batch: [128, 512]");
  EXPECT_EQ(Section(empty, "sustained").fill, "a sustained60 test");
  EXPECT_NE(Section(empty, "quality-by-quant").fill, "");
  EXPECT_EQ(Section(empty, "devices").fill, "");
}

// Threads, batch sizes and depths are whole numbers: their axes tick at whole numbers only (no
// 1.2 threads), as the registry declares them. A registry that declares the parameter otherwise
// is followed even where every value is whole; a parameter the registry does not know is integer
// when its values are.
TEST(Page, IntegerParametersAreDrawnOnAnIntegerAxis) {
  const json integer = {{"tickMinStep", 1}, {"format", "d"}};
  const auto page = Page(Fixed());
  for (const char* id : {"speed-by-threads", "speed-by-n-batch", "depth-speed", "depth-memory"}) {
    const Chart* c = FindChart(page, id);
    ASSERT_NE(c, nullptr) << id;
    const json& x =
        c->spec.contains("spec") ? c->spec["spec"]["encoding"]["x"] : c->spec["encoding"]["x"];
    EXPECT_EQ(x.value("axis", json()), integer) << id << ": " << x;
  }

  const auto threads_of = [](const runtime::ParamRegistry& params) {
    const auto p = BuildPage(Fixed(), {}, params, workload::Figures());
    const Chart* c = FindChart(p, "speed-by-threads");
    return c ? c->spec["spec"]["encoding"]["x"] : json();
  };
  runtime::ParamDef choice;
  choice.name = "threads";
  choice.kind = runtime::ParamKind::kChoice;
  choice.choices = {"1", "2"};
  EXPECT_FALSE(
      threads_of(runtime::ParamRegistry(std::vector<runtime::ParamDef>{choice})).contains("axis"));
  EXPECT_EQ(
      threads_of(runtime::ParamRegistry(std::vector<runtime::ParamDef>{})).value("axis", json()),
      integer);
}

TEST(Page, SamplesDrawEveryRepetitionWithTheMedian) {
  const auto page = Page(Fixed());
  const Chart* c = FindChart(page, "samples-tg16-throughput");
  ASSERT_NE(c, nullptr);
  // Six cells with three repetitions each.
  EXPECT_EQ(c->spec["data"]["values"].size(), 18u);
  for (const json& v : c->spec["data"]["values"]) {
    EXPECT_GE(v["repetition"].get<int>(), 1);
    EXPECT_LE(v["repetition"].get<int>(), 3);
  }
}

}  // namespace
}  // namespace pipette::report
