// The derived-results cache, end to end through the store: a report from the cached rows is byte
// for byte the one derived live from the raw samples, in every format; a cache that is stale,
// corrupt or outdated by new samples is passed over for the samples, with no error.
#include "pipette/report/load.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <sstream>

#include "pipette/metrics/row_cache.h"
#include "pipette/report/document.h"
#include "pipette/report/formats.h"
#include "pipette/runtime/registry.h"
#include "pipette/testing/paths.h"
#include "pipette/workload/registry.h"

namespace pipette::report {
namespace {
namespace fs = std::filesystem;

const std::string kV1Store = pipette::testing::SourceDir() + "/tests/data/store-v1.db";

class DerivedCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pipette-load-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "store.db").string();
    fs::copy_file(kV1Store, path_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // What `pipette run` does when each cell finishes, for every finished cell of the store.
  void CacheFinishedCells() {
    auto s = store::Store::Open(path_);  // migrates the last release's store
    ASSERT_TRUE(s.ok()) << s.error().message;
    auto runs = (*s)->Runs();
    ASSERT_TRUE(runs.ok());
    for (const auto& r : *runs) {
      auto cells = (*s)->Cells(r.id);
      ASSERT_TRUE(cells.ok());
      for (const auto& c : *cells) {
        if (c.status == "running") continue;
        auto st = metrics::StoreDerivedRows(**s, c, workload::Derivers());
        ASSERT_TRUE(st.ok()) << st.error().message;
      }
    }
  }

  void Sql(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    const std::string message = err ? err : "";
    sqlite3_free(err);
    sqlite3_close(db);
    ASSERT_EQ(rc, SQLITE_OK) << message;
  }

  int64_t CachedCells() {
    auto s = store::Store::Open(path_, store::OpenMode::kReadOnly);
    EXPECT_TRUE(s.ok());
    if (!s) return -1;
    int64_t n = 0;
    for (int64_t run : {1, 2}) {
      auto d = (*s)->DerivedOfRun(run);
      EXPECT_TRUE(d.ok());
      if (d) n += int64_t(d->size());
    }
    return n;
  }

  // Every format of the report of every run, as `pipette report --all` reads it (read-only).
  std::string Render(bool cache) {
    auto s = store::Store::Open(path_, store::OpenMode::kReadOnly);
    EXPECT_TRUE(s.ok()) << s.error().message;
    if (!s) return "";
    auto data =
        LoadReportData(**s, {1, 2}, workload::Derivers(), nullptr, {.derived_cache = cache});
    EXPECT_TRUE(data.ok()) << data.error().message;
    if (!data) return "";
    data->generated_at = "2026-12-01T00:00:00Z";
    EXPECT_FALSE(data->rows.empty());
    std::ostringstream out;
    const report::Report doc =
        BuildReport(*data, runtime::Registry().Params(), workload::Figures());
    for (const Format& f : Formats()) {
      out << "== " << f.name << "\n";
      f.render(doc, out);
    }
    return out.str();
  }

  // Changes one recorded figure in place without adding a sample (no writer does that): what a
  // report then shows tells whether it read the cache or the samples.
  void EditASampleInPlace() {
    Sql("UPDATE samples SET raw = json_set(raw, '$.t_end_ns', json_extract(raw, '$.t_end_ns') * "
        "2) WHERE cell_id = 1 AND test = 'pp16'");
  }

  fs::path dir_;
  std::string path_;
};

TEST_F(DerivedCacheTest, ARunGivenTwiceIsRefusedNotReadTwice) {
  auto s = store::Store::Open(path_, store::OpenMode::kReadOnly);
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto data = LoadReportData(**s, {1, 2, 1}, workload::Derivers(), nullptr);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.error().exit_code, 2);
  EXPECT_NE(data.error().message.find("run 1 is given twice"), std::string::npos)
      << data.error().message;
}

TEST_F(DerivedCacheTest, AStoreWithoutACacheReportsFromItsSamples) {
  const std::string before = Render(false);
  EXPECT_EQ(Render(true), before);
  EXPECT_EQ(CachedCells(), 0);
}

TEST_F(DerivedCacheTest, TheReportFromTheCacheIsTheLiveOneInEveryFormat) {
  const std::string live_before = Render(false);
  CacheFinishedCells();
  EXPECT_EQ(CachedCells(), 2);  // the two finished cells of run 1; run 2's cell is running
  EXPECT_EQ(Render(true), live_before);
  EXPECT_EQ(Render(false), live_before);
  // The cache is what was read: with a sample edited in place, the live report changes and the
  // cached one does not.
  EditASampleInPlace();
  const std::string live = Render(false);
  EXPECT_NE(live, live_before);
  EXPECT_EQ(Render(true), live_before);
}

TEST_F(DerivedCacheTest, AnotherDerivationVersionIsDerivedLive) {
  CacheFinishedCells();
  EditASampleInPlace();
  const std::string live = Render(false);
  ASSERT_NE(Render(true), live);
  Sql("UPDATE derived SET version = version + 1 WHERE cell_id = 1");
  EXPECT_EQ(Render(true), live);
}

TEST_F(DerivedCacheTest, ACorruptCacheRowIsDerivedLiveWithNoError) {
  CacheFinishedCells();
  EditASampleInPlace();
  const std::string live = Render(false);
  for (const std::string rows :
       {"not json", R"({"params_set":{},"rows":[["pp16"]]})", R"({"rows":[]})", ""}) {
    SCOPED_TRACE(rows);
    Sql("UPDATE derived SET rows = '" + rows + "' WHERE cell_id = 1");
    EXPECT_EQ(Render(true), live);
  }
}

TEST_F(DerivedCacheTest, ASampleAddedSinceIsDerivedLive) {
  CacheFinishedCells();
  EditASampleInPlace();
  // A sample added to the load cell changes what cell 2 was derived from, too.
  Sql("INSERT INTO samples(cell_id, test, rep, warmup, raw, created_at) SELECT cell_id, test, rep "
      "+ 1, warmup, raw, created_at FROM samples WHERE cell_id = 1 AND test = 'pp16' LIMIT 1");
  const std::string live = Render(false);
  EXPECT_EQ(Render(true), live);
  Sql("UPDATE derived SET n_samples = n_samples + 1, max_sample_id = (SELECT max(id) FROM samples "
      "WHERE cell_id = 1) WHERE cell_id = 1");
  EXPECT_NE(Render(true), live);  // counts that match again: the (stale) cache is read
}

}  // namespace
}  // namespace pipette::report
