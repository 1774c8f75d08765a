#include "pipette/report/document.h"

#include <gtest/gtest.h>

#include <set>

#include "pipette/runtime/registry.h"
#include "pipette/workload/registry.h"

namespace pipette::report {
namespace {

TEST(Document, ResultsHaveOneTypedRowPerDerivedRow) {
  metrics::ResultRow r;
  r.EditCell().run_id = 2;
  r.EditCell().cell_index = 4;
  r.test = "memory";
  r.metric = "peak_rss";
  r.unit = "bytes";
  r.na_reason = "no reset";
  metrics::ResultRow ok = r;
  ok.na_reason = "";
  ok.samples = {1, 2, 3};
  ok.summary = stats::Summarize(ok.samples);
  ok.value = 2;
  ok.std_error = 0.5;
  const Table t = ResultsTable({r, ok});
  ASSERT_EQ(t.rows.size(), 2u);
  std::set<std::string> names;
  for (const auto& c : t.columns) EXPECT_TRUE(names.insert(c.name).second) << c.name;
  for (const auto& row : t.rows) ASSERT_EQ(row.values.size(), t.columns.size());
  auto at = [&](size_t row, const char* name) { return t.rows[row].values[*t.Find(name)]; };
  EXPECT_EQ(std::get<int64_t>(at(0, "cell")), 5);  // 1-based
  EXPECT_TRUE(IsNull(at(0, "value")));             // n/a: no value
  EXPECT_EQ(std::get<std::string>(at(0, "na")), "no reset");
  EXPECT_DOUBLE_EQ(std::get<double>(at(1, "value")), 2);
  EXPECT_DOUBLE_EQ(std::get<double>(at(1, "std_error")), 0.5);
  EXPECT_TRUE(IsNull(at(1, "na")));
  EXPECT_EQ(std::get<std::vector<double>>(at(1, "samples")), ok.samples);
  EXPECT_EQ(t.columns[*t.Find("model_file_size")].unit, "bytes");
  EXPECT_EQ(t.columns[*t.Find("samples")].type, ColumnType::kReals);
}

TEST(Document, BuiltOnceWithEveryTable) {
  ReportData d;
  d.store_path = "s.db";
  d.warnings = {"w"};
  store::CellRecord c;
  c.status = "failed";
  c.error = "died";
  d.cells = {c};
  const Report r = BuildReport(d, runtime::Registry().Params(), workload::Figures());
  EXPECT_EQ(r.schema_version, kJsonSchemaVersion);
  EXPECT_EQ(r.store, "s.db");
  EXPECT_EQ(r.cells.rows.size(), 1u);
  EXPECT_EQ(r.results.rows.size(), 0u);
  ASSERT_EQ(r.incomplete.size(), 1u);
  EXPECT_EQ(r.incomplete[0].reason, "died");
  for (const Table* t : {&r.runs, &r.environments, &r.cells, &r.results, &r.mc_items}) {
    EXPECT_FALSE(t->name.empty());
    EXPECT_FALSE(t->columns.empty()) << t->name;
  }
}

}  // namespace
}  // namespace pipette::report
