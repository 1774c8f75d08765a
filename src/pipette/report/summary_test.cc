#include "pipette/report/summary.h"

#include <gtest/gtest.h>

#include "pipette/runtime/registry.h"
#include "pipette/workload/registry.h"

namespace pipette::report {
namespace {

metrics::ResultRow Speed(int64_t cell, int threads, int n_batch, std::vector<double> samples) {
  metrics::ResultRow r;
  auto& facts = r.EditCell();
  facts.run_id = 1;
  facts.cell_id = cell;
  facts.cell_index = int(cell - 1);
  facts.cell_status = "ok";
  facts.model = "smol";
  facts.quant = "Q4_1";
  facts.runtime = "llama.cpp";
  facts.runtime_version = "0.3.36";
  facts.params = {{"threads", threads}, {"n_batch", n_batch}, {"n_ubatch", 512}};
  r.test = "tg16";
  r.metric = "throughput";
  r.unit = "t/s";
  r.samples = std::move(samples);
  r.summary = stats::Summarize(r.samples);
  r.value = r.summary.median;
  return r;
}

std::vector<std::string> Names(const Table& t) {
  std::vector<std::string> names;
  for (const auto& c : t.columns) names.push_back(c.name);
  return names;
}

TEST(Summary, OneTextRowPerSpeedTestWithNoiseFlags) {
  const std::vector<metrics::ResultRow> rows = {Speed(1, 1, 256, {100, 101, 99}),
                                                Speed(2, 2, 512, {50, 60, 40})};
  const Table t = SummaryTable(rows, runtime::Registry().Params(), workload::Figures());
  // threads always; n_batch because it varies; n_ubatch not (one value). In name order.
  EXPECT_EQ(Names(t),
            (std::vector<std::string>{"model", "size", "params", "quant", "runtime", "n_batch",
                                      "threads", "test", "result", "peak RSS"}));
  EXPECT_EQ(t.columns[0].align, Align::kLeft);
  EXPECT_EQ(t.columns[1].align, Align::kRight);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_FALSE(t.rows[0].noisy);
  EXPECT_TRUE(t.rows[1].noisy);  // CV 20%
  EXPECT_EQ(std::get<std::string>(t.rows[1].values[8]), "50.00 ± 10.00 t/s (noisy: CV 20.0%)");
  EXPECT_EQ(std::get<std::string>(t.rows[1].values[9]), "n/a");  // no peak RSS figure
  for (const auto& row : t.rows) EXPECT_EQ(row.values.size(), t.columns.size());
  EXPECT_TRUE(t.footnotes.empty());
}

// A workload's figures reach the summary through its headline alone: a made-up workload (a test
// fixture) gets its column, its text, and a line for a cell that has no speed test, with no
// edit to report/; with no headlines the same rows show no quality column.
TEST(Summary, AWorkloadsHeadlineIsItsColumn) {
  metrics::ResultRow echo = Speed(2, 1, 512, {});
  echo.test = "echo";
  echo.metric = "score";
  echo.value = 0.25;
  const metrics::Headlines fixture = {
      {.column = "echo score",
       .order = 1,
       .shows = [](const metrics::ResultRow& r) { return r.test == "echo"; },
       .makes_line = [](const metrics::ResultRow& r) { return r.test == "echo"; },
       .text =
           [](const std::vector<const metrics::ResultRow*>& rows) {
             return "score " + std::to_string(int(100 * rows.back()->value));
           }}};
  const std::vector<metrics::ResultRow> rows = {Speed(1, 1, 512, {100, 100}), echo};
  const Table t = SummaryTable(rows, runtime::Registry().Params(),
                               metrics::FigureCatalogue(workload::Figures().defs(), fixture));
  const std::vector<std::string> names = Names(t);
  ASSERT_EQ(names.size(), 10u);
  EXPECT_EQ(names[8], "echo score");
  ASSERT_EQ(t.rows.size(), 2u);  // cell 1's tg16, cell 2's quality line
  EXPECT_EQ(std::get<std::string>(t.rows[0].values[8]), "");
  EXPECT_EQ(std::get<std::string>(t.rows[1].values[6]), "quality");
  EXPECT_EQ(std::get<std::string>(t.rows[1].values[8]), "score 25");

  const Table none = SummaryTable(rows, runtime::Registry().Params(),
                                  metrics::FigureCatalogue(workload::Figures().defs(), {}));
  EXPECT_EQ(Names(none).size(), 9u);
  EXPECT_EQ(none.rows.size(), 1u);
}

TEST(Summary, RequantizedVariantsGetAFootnoteAndIncompleteCellsANote) {
  std::vector<metrics::ResultRow> rows = {Speed(1, 1, 512, {100, 100})};
  rows[0].EditCell().quant_origin = "re-quantized from Q4_1";
  const Table t = SummaryTable(rows, runtime::Registry().Params(), workload::Figures());
  ASSERT_EQ(t.footnotes.size(), 1u);
  EXPECT_EQ(t.footnotes[0].rfind("* re-quantized from Q4_1", 0), 0u);
  store::CellRecord ok, failed, superseded;
  ok.status = "ok";
  failed.status = "failed";
  failed.index = 1;
  failed.key = "k";
  superseded.status = "superseded";
  const auto notes = IncompleteCells({ok, superseded, failed});
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].cell, 2);
  EXPECT_EQ(notes[0].reason, "(no reason recorded)");
  EXPECT_EQ(notes[0].key, "k");
}

}  // namespace
}  // namespace pipette::report
