// The sql format loads into SQLite as printed: executed here in an in-memory database, the rows
// read back are the report's.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "pipette/report/formats.h"
#include "pipette/runtime/registry.h"
#include "pipette/workload/registry.h"

namespace pipette::report {
namespace {

ReportData Data() {
  ReportData d;
  d.generated_at = "2026-11-29T12:00:00Z";
  d.pipette_version = "0.1.0";
  metrics::ResultRow r;
  auto& facts = r.EditCell();
  facts.run_id = 3;
  facts.cell_index = 0;
  facts.cell_status = "ok";
  // Text that must be quoted: a quote, a line break, a tab, a ';', and what sqlite3 would read
  // as a command at the start of a line.
  facts.model = "o'brien;\n.quit\tx";
  facts.model_file_size = 98362432;
  facts.params = {{"threads", 2}, {"flash_attn", "on"}};
  r.test = "tg16";
  r.metric = "throughput";
  r.unit = "t/s";
  r.samples = {50.25, 60, 40.125};
  r.summary = stats::Summarize(r.samples);
  r.value = r.summary.median;
  metrics::ResultRow na = r;
  na.EditCell().model = "";
  na.test = "memory";
  na.metric = "peak_rss";
  na.na_reason = "the worker could not reset its peak-memory mark";
  na.samples = {};
  na.summary = {};
  d.rows = {r, na};
  return d;
}

std::string Sql(const ReportData& d) {
  std::ostringstream out;
  (*FindFormat("sql"))
      ->render(BuildReport(d, runtime::Registry().Params(), workload::Figures()), out);
  return out.str();
}

class Db {
 public:
  Db() { sqlite3_open(":memory:", &db_); }
  ~Db() { sqlite3_close(db_); }
  // Runs the script; "" or SQLite's error.
  std::string Exec(const std::string& sql) {
    char* msg = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) == SQLITE_OK) return "";
    std::string e = msg ? msg : "error";
    sqlite3_free(msg);
    return e;
  }
  // One column of every row, as SQLite's type name and text.
  std::vector<std::string> Column(const std::string& query) {
    sqlite3_stmt* st = nullptr;
    std::vector<std::string> out;
    if (sqlite3_prepare_v2(db_, query.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      return {std::string("error: ") + sqlite3_errmsg(db_)};
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
      const unsigned char* t = sqlite3_column_text(st, 0);
      const std::string type = sqlite3_column_type(st, 0) == SQLITE_NULL    ? "null"
                               : sqlite3_column_type(st, 0) == SQLITE_TEXT  ? "text"
                               : sqlite3_column_type(st, 0) == SQLITE_FLOAT ? "real"
                                                                            : "integer";
      out.push_back(type + ":" +
                    (t ? std::string(reinterpret_cast<const char*>(t),
                                     static_cast<size_t>(sqlite3_column_bytes(st, 0)))
                       : std::string()));
    }
    sqlite3_finalize(st);
    return out;
  }

 private:
  sqlite3* db_ = nullptr;
};

using Strings = std::vector<std::string>;

TEST(Sql, LoadsIntoSqliteAndReadsBackTheRows) {
  const ReportData d = Data();
  const std::string sql = Sql(d);
  Db db;
  ASSERT_EQ(db.Exec(sql), "") << sql;
  EXPECT_EQ(db.Column("SELECT count(*) FROM results"), Strings{"integer:2"});
  EXPECT_EQ(db.Column("SELECT model FROM results ORDER BY rowid"),
            (Strings{"text:o'brien;\n.quit\tx", "text:"}));
  EXPECT_EQ(db.Column("SELECT value FROM results ORDER BY rowid"),
            (Strings{"real:50.25", "null:"}));
  EXPECT_EQ(db.Column("SELECT na FROM results ORDER BY rowid"),
            (Strings{"null:", "text:the worker could not reset its peak-memory mark"}));
  EXPECT_EQ(db.Column("SELECT run_id || '/' || cell || '/' || noisy FROM results LIMIT 1"),
            Strings{"text:3/1/1"});
  EXPECT_EQ(db.Column("SELECT model_file_size FROM results LIMIT 1"), Strings{"integer:98362432"});
  // JSON values are text that SQLite's JSON functions read.
  EXPECT_EQ(db.Column("SELECT json_extract(params, '$.threads') FROM results LIMIT 1"),
            Strings{"integer:2"});
  const auto samples = db.Column("SELECT samples FROM results LIMIT 1");
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(samples[0].substr(5)), nlohmann::json({50.25, 60.0, 40.125}));
  // Every column of the table, with its declared type.
  const Table t = ResultsTable(d.rows);
  const auto names = db.Column("SELECT name FROM pragma_table_info('results') ORDER BY cid");
  ASSERT_EQ(names.size(), t.columns.size());
  for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(names[i], "text:" + t.columns[i].name);
}

TEST(Sql, EveryStatementIsOneLineAndReportsAppend) {
  const std::string sql = Sql(Data());
  std::istringstream lines(sql);
  std::string line;
  int inserts = 0;
  while (std::getline(lines, line)) {
    if (line.starts_with("INSERT INTO ")) {
      ++inserts;
      EXPECT_TRUE(line.ends_with(");")) << line;
    }
  }
  EXPECT_EQ(inserts, 2);
  // A second report into the same database adds its rows to the table.
  Db db;
  ASSERT_EQ(db.Exec(sql), "");
  ASSERT_EQ(db.Exec(sql), "");
  EXPECT_EQ(db.Column("SELECT count(*) FROM results"), Strings{"integer:4"});
}

TEST(Sql, EmptyReportStillMakesTheTable) {
  Db db;
  ASSERT_EQ(db.Exec(Sql(ReportData{})), "");
  EXPECT_EQ(db.Column("SELECT count(*) FROM results"), Strings{"integer:0"});
}

}  // namespace
}  // namespace pipette::report
