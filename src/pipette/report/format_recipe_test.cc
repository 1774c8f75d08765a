// The recipe of docs/architecture.md "Adding an output format": a made-up format, `toy` (a test
// fixture, in this test's format registry only: one line per result row, "test metric value
// unit"), is found by name, listed by its registry (what --help and the unknown-format message
// print of Pipette's) and in the unknown-format message, and renders a report built from a run
// against the fake worker, with nothing outside this file written for it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sstream>

#include "pipette/config/experiment_testing.h"
#include "pipette/metrics/cell_figures.h"
#include "pipette/plan/plan.h"
#include "pipette/report/document.h"
#include "pipette/report/formats.h"
#include "pipette/run/runner_testing.h"
#include "pipette/workload/registry.h"
#include "pipette/workload/speed/speed.h"
#include "pipette/workload/speed/speed_testing.h"

namespace pipette::report {
namespace {

// The made-up renderer: it formats the report's tables, and computes nothing.
void RenderToy(const Report& report, std::ostream& out) {
  const Table& t = report.results;
  const auto test = t.Find("test"), metric = t.Find("metric"), value = t.Find("value"),
             unit = t.Find("unit");
  if (!test || !metric || !value || !unit) return;
  for (const Row& row : t.rows) {
    out << fmt::format("{} {} {} {}\n", TextOf(t.columns[*test], row, row.values[*test]),
                       TextOf(t.columns[*metric], row, row.values[*metric]),
                       TextOf(t.columns[*value], row, row.values[*value]),
                       TextOf(t.columns[*unit], row, row.values[*unit]));
  }
}

// The formats Pipette ships, and toy.
const FormatRegistry& WithToy() {
  static const FormatRegistry formats = [] {
    std::vector<Format> all = Formats().formats();
    all.push_back({"toy", "one line per result row: test, metric, value, unit", RenderToy,
                   ReportParts::kAll});
    return FormatRegistry(std::move(all));
  }();
  return formats;
}

TEST(OutputFormatRecipe, AMadeUpFormatIsFoundAndListedByName) {
  auto toy = WithToy().Find("toy");
  ASSERT_TRUE(toy.ok()) << toy.error().message;
  EXPECT_EQ((*toy)->name, "toy");
  EXPECT_EQ(WithToy().List("|"), "md|csv|json|jsonl|sql|html|toy");
  const Error unknown = WithToy().Find("tyo").error();
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.message,
            "unknown report format 'tyo' (did you mean 'toy'?) (formats: md, csv, json, jsonl, "
            "sql, html, toy)");
  // Pipette's own registry has no toy.
  EXPECT_FALSE(FindFormat("toy").ok());
}

class OutputFormatRecipeRun : public config::ExperimentTest {};

TEST_F(OutputFormatRecipeRun, AMadeUpFormatRendersARunsReport) {
  auto ex = Parse("models: [smollm2-135m-instruct-q4_1]\ntests: [tg4]\nrepetitions: 2\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  auto cells = plan::Expand(*ex, runtime::Registry(), workload::PlanNeeds());
  ASSERT_TRUE(cells.ok()) << cells.error().message;
  run::FakeWorkerRun run("output-format-recipe", registry_);
  const std::unique_ptr<workload::Workload> speed = workload::NewSpeed();
  const metrics::RowDerivers derivers = {speed.get(), &metrics::CellDeriver()};
  auto data = run.Run(*ex, *cells, registry_, runtime::Registry(), workload::SpeedAlone, derivers);
  ASSERT_TRUE(data.ok()) << data.error().message;

  const Format* toy = *WithToy().Find("toy");
  const Report report = BuildReport(*data, registry_, workload::Figures(), toy->parts);
  std::ostringstream out;
  toy->render(report, out);
  // One line per result row, each the row's own figure.
  std::istringstream lines(out.str());
  std::string line;
  size_t n = 0;
  bool throughput = false;
  for (const metrics::ResultRow& r : data->rows) {
    ASSERT_TRUE(std::getline(lines, line)) << out.str();
    EXPECT_EQ(line.rfind(r.test + " " + r.metric + " ", 0), 0u) << line;
    throughput = throughput || (r.test == "tg4" && r.metric == "throughput");
    ++n;
  }
  EXPECT_FALSE(std::getline(lines, line)) << out.str();
  EXPECT_GT(n, 0u);
  EXPECT_TRUE(throughput) << out.str();
}

}  // namespace
}  // namespace pipette::report
