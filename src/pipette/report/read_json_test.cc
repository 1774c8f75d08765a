#include "pipette/report/read_json.h"

#include <gtest/gtest.h>

#include "pipette/report/data.h"
#include "pipette/report/document.h"

namespace pipette::report {
namespace {

using nlohmann::ordered_json;

metrics::ResultRow MakeRow(int64_t run, const std::string& test, std::vector<double> samples) {
  metrics::ResultRow r;
  metrics::CellFacts& c = r.EditCell();
  c.run_id = run;
  c.model = "m";
  c.model_sha256 = "abc";
  c.quant = "Q4_1";
  c.runtime = "llama.cpp";
  c.runtime_version = "0.3.36";
  c.device = "Intel Xeon";
  c.params = {{"threads", 2}};
  r.test = test;
  r.metric = "throughput";
  r.unit = "t/s";
  r.samples = std::move(samples);
  r.summary = stats::Summarize(r.samples);
  r.value = r.summary.median;
  return r;
}

std::string Document(const std::vector<metrics::ResultRow>& rows) {
  const Table t = ResultsTable(rows);
  ordered_json j = {{"schema", "pipette.report"}, {"schema_version", kJsonSchemaVersion}};
  j["results"] = ordered_json::array();
  for (const Row& row : t.rows) j["results"].push_back(RowObject(t, row));
  return j.dump();
}

TEST(RowsFromReportJson, TheRowsOfTheReportsLatestRunOrOfTheOneAsked) {
  const std::string doc =
      Document({MakeRow(1, "tg128", {10, 11, 12}), MakeRow(2, "tg128", {20, 21, 22}),
                MakeRow(2, "pp512", {100, 101, 102})});
  auto latest = RowsFromReportJson(doc, "r.json", std::nullopt);
  ASSERT_TRUE(latest.ok()) << latest.error().message;
  EXPECT_EQ(latest->run_id, 2);
  ASSERT_EQ(latest->rows.size(), 2u);
  const metrics::ResultRow& tg = latest->rows[0];
  EXPECT_EQ(tg.test, "tg128");
  EXPECT_EQ(tg.samples, (std::vector<double>{20, 21, 22}));
  EXPECT_EQ(tg.cell->model_sha256, "abc");
  EXPECT_EQ(tg.cell->params["threads"], 2);
  EXPECT_EQ(tg.cell->runtime_version, "0.3.36");
  EXPECT_EQ(tg.cell.get(), latest->rows[1].cell.get());  // one cell's facts, shared
  auto first = RowsFromReportJson(doc, "r.json", 1);
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->rows.size(), 1u);
  EXPECT_EQ(first->rows[0].samples, (std::vector<double>{10, 11, 12}));
}

TEST(RowsFromReportJson, WhatIsNotAReportIsAnErrorNamingTheFile) {
  struct Case {
    std::string text;
    std::optional<int64_t> run;
    std::string message;
  } cases[] = {
      {"{", std::nullopt, "r.json: not JSON"},
      {R"({"schema": "pipette.compare"})", std::nullopt,
       "r.json: not a Pipette JSON report (its \"schema\" is not \"pipette.report\")"},
      {R"({"schema": "pipette.report", "schema_version": 99, "results": []})", std::nullopt,
       "r.json: report schema version 99; this Pipette reads versions 2 to 7"},
      {R"({"schema": "pipette.report", "schema_version": 6, "results": [{"cell": 1}]})",
       std::nullopt, "r.json: results[0] is not a result (run_id, cell, test, metric)"},
      {Document({MakeRow(1, "tg128", {1, 2, 3})}), 4, "r.json: no result of run 4"},
      {R"({"schema": "pipette.report", "schema_version": "6", "results": []})", std::nullopt,
       "r.json: not a Pipette JSON report as this Pipette reads it: "},
  };
  for (const Case& c : cases) {
    auto r = RowsFromReportJson(c.text, "r.json", c.run);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.error().exit_code, 2);
    EXPECT_EQ(r.error().message.substr(0, c.message.size()), c.message) << r.error().message;
  }
}

}  // namespace
}  // namespace pipette::report
