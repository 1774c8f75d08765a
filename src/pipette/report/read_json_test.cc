#include "pipette/report/read_json.h"

#include <gtest/gtest.h>

#include <cmath>

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
       "r.json: report schema version 99; this Pipette reads versions 2 to 8"},
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

// A report nesting half a million arrays (1 MB) is refused as it is read, never built (a deep
// value's copy or destruction would overflow the stack).
TEST(RowsFromReportJson, DeepNestingIsRefusedNotBuilt) {
  const size_t depth = 500000;
  std::string text = R"({"schema": "pipette.report", "schema_version": 7, "results": )";
  text += std::string(depth, '[') + std::string(depth, ']') + "}";
  auto r = RowsFromReportJson(text, "x.json", std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().exit_code, 2);
  EXPECT_EQ(r.error().message.rfind("x.json: JSON nested deeper than", 0), 0u) << r.error().message;
}

// Every field of a result is checked for its type where it is read: the wrong type is an error
// naming the file, the result's index and the field.
TEST(RowsFromReportJson, AFieldOfTheWrongTypeNamesTheResultAndTheField) {
  struct Case {
    const char* field;
    ordered_json value;
    std::string message;
  } cases[] = {
      {"model", 5, "r.json: results[1].model is not text"},
      {"model_file_size", "big", "r.json: results[1].model_file_size is not a whole number"},
      {"emulated", "no", "r.json: results[1].emulated is not true or false"},
      {"params", ordered_json::array(), "r.json: results[1].params is not an object"},
      {"value", "1.5", "r.json: results[1].value is not a number"},
      {"samples", 3, "r.json: results[1].samples is not a list of numbers"},
      {"samples", ordered_json::array({1, "2"}),
       "r.json: results[1].samples is not a list of numbers"},
      {"untrusted", true, "r.json: results[1].untrusted is not text"},
      {"unit", ordered_json::object(), "r.json: results[1].unit is not text"},
  };
  for (const Case& c : cases) {
    ordered_json doc = ordered_json::parse(
        Document({MakeRow(1, "pp512", {1, 2, 3}), MakeRow(1, "tg128", {1, 2, 3})}));
    doc["results"][1][c.field] = c.value;
    auto r = RowsFromReportJson(doc.dump(), "r.json", std::nullopt);
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_EQ(r.error().exit_code, 2);
    EXPECT_EQ(r.error().message.substr(0, c.message.size()), c.message) << r.error().message;
  }
}

// Sample counts are bounded (the work a side costs, its bootstrap, grows with them): one more
// than kMaxReportSamples is refused, naming the file, the result and the count.
TEST(RowsFromReportJson, MoreSamplesThanAFigureMayHoldAreRefused) {
  ordered_json doc = ordered_json::parse(Document({MakeRow(1, "tg128", {1, 2, 3})}));
  doc["results"][0]["samples"] = ordered_json::array();
  for (size_t i = 0; i < kMaxReportSamples; ++i) doc["results"][0]["samples"].push_back(1);
  auto most = RowsFromReportJson(doc.dump(), "r.json", std::nullopt);
  ASSERT_TRUE(most.ok()) << most.error().message;
  EXPECT_EQ(most->rows[0].samples.size(), kMaxReportSamples);
  doc["results"][0]["samples"].push_back(1);
  auto more = RowsFromReportJson(doc.dump(), "r.json", std::nullopt);
  ASSERT_FALSE(more.ok());
  EXPECT_EQ(more.error().exit_code, 2);
  EXPECT_EQ(more.error().message,
            "r.json: results[0].samples holds 1000001 values, more than the 1000000 a figure may "
            "hold");
}

// An empty sample list stays empty and a null sample reads as a sample that is not a finite
// number, never as 0 (compare calls such a figure missing); a cell's untrusted warning comes back.
TEST(RowsFromReportJson, NullSamplesAreNotZeroAndTheUntrustedWarningComesBack) {
  metrics::ResultRow marked = MakeRow(1, "tg128", {5, 6, 7});
  marked.EditCell().untrusted = "measured while 1 other Pipette measured on the machine";
  ordered_json doc = ordered_json::parse(Document({marked}));
  EXPECT_EQ(doc["results"][0]["untrusted"], marked.cell->untrusted);
  auto back = RowsFromReportJson(doc.dump(), "r.json", std::nullopt);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->rows[0].cell->untrusted, marked.cell->untrusted);
  doc["results"][0]["samples"] = ordered_json::array({5, nullptr, 7});
  auto null = RowsFromReportJson(doc.dump(), "r.json", std::nullopt);
  ASSERT_TRUE(null.ok()) << null.error().message;
  ASSERT_EQ(null->rows[0].samples.size(), 3u);
  EXPECT_TRUE(std::isnan(null->rows[0].samples[1]));
  doc["results"][0]["samples"] = ordered_json::array();
  auto empty = RowsFromReportJson(doc.dump(), "r.json", std::nullopt);
  ASSERT_TRUE(empty.ok()) << empty.error().message;
  EXPECT_TRUE(empty->rows[0].samples.empty());
}

}  // namespace
}  // namespace pipette::report
