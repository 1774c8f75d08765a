#include "pipette/store/store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>

namespace pipette::store {
namespace {
namespace fs = std::filesystem;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pipette-store-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    path_ = (dir_ / "sub" / "results.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string path_;
};

TEST_F(StoreTest, RoundTripRunCellsSamples) {
  int64_t run_id = 0, cell_id = 0, env_id = 0;
  {
    auto s = Store::Open(path_);  // creates the folder too
    ASSERT_TRUE(s.ok()) << s.error().message;
    auto env = (*s)->AddEnvironment({0, "abc123", {{"cpu_model", "Test CPU"}}});
    ASSERT_TRUE(env.ok());
    env_id = *env;
    RunRecord r;
    r.name = "exp";
    r.experiment_path = "ex.yaml";
    r.config_hash = std::string(64, 'f');
    r.config_text = "models: [x]\n";
    r.pipette_version = "0.1.0";
    r.pipette_commit = "deadbeef";
    r.environment_id = env_id;
    r.n_cells = 1;
    auto rid = (*s)->BeginRun(r);
    ASSERT_TRUE(rid.ok());
    run_id = *rid;
    CellRecord c;
    c.run_id = run_id;
    c.index = 0;
    c.key = "model=x,threads=2";
    c.model_name = "x";
    c.model_path = "/m/x.gguf";
    c.model_source = "path";
    c.params = {{"threads", 2}};
    c.conditions = {{"load_avg_1", 0.5}};
    auto cid = (*s)->BeginCell(c);
    ASSERT_TRUE(cid.ok());
    cell_id = *cid;
    c.id = cell_id;
    c.load_cell_id = cell_id;
    ASSERT_TRUE((*s)->AddSample({0, cell_id, "tg16", 0, true, {{"t_start_ns", 1}}}).ok());
    ASSERT_TRUE((*s)->AddSample({0, cell_id, "tg16", 1, false, {{"t_start_ns", 2}}}).ok());
    c.status = "failed";
    c.error = "worker died";
    c.stderr_tail = "boom";
    c.worker_pid = 42;
    c.finished_at = NowIso8601();
    ASSERT_TRUE((*s)->UpdateCell(c).ok());
    ASSERT_TRUE((*s)->FinishRun(run_id, "done").ok());
  }
  auto s = Store::Open(path_);  // reopen: everything was committed
  ASSERT_TRUE(s.ok());
  auto latest = (*s)->LatestRunId();
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ(**latest, run_id);
  auto run = (*s)->Run(run_id);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->status, "done");
  EXPECT_EQ(run->config_text, "models: [x]\n");
  EXPECT_FALSE(run->finished_at.empty());
  auto env = (*s)->Environment(env_id);
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->facts["cpu_model"], "Test CPU");
  auto cells = (*s)->Cells(run_id);
  ASSERT_TRUE(cells.ok());
  ASSERT_EQ(cells->size(), 1u);
  const CellRecord& c = (*cells)[0];
  EXPECT_EQ(c.status, "failed");
  EXPECT_EQ(c.error, "worker died");
  EXPECT_EQ(c.stderr_tail, "boom");
  EXPECT_EQ(c.worker_pid, 42);
  EXPECT_EQ(c.params["threads"], 2);
  EXPECT_EQ(c.load_cell_id, cell_id);
  auto samples = (*s)->Samples(cell_id);
  ASSERT_TRUE(samples.ok());
  ASSERT_EQ(samples->size(), 2u);
  EXPECT_TRUE((*samples)[0].warmup);
  EXPECT_FALSE((*samples)[1].warmup);
  EXPECT_EQ((*samples)[1].raw["t_start_ns"], 2);
  EXPECT_FALSE((*s)->Run(run_id + 1).ok());
}

TEST_F(StoreTest, EmptyStoreHasNoLatestRun) {
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok());
  auto latest = (*s)->LatestRunId();
  ASSERT_TRUE(latest.ok());
  EXPECT_FALSE(latest->has_value());
}

TEST_F(StoreTest, RefusesANewerSchema) {
  { ASSERT_TRUE(Store::Open(path_).ok()); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE meta SET value = '99' WHERE key = 'schema_version'", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto s = Store::Open(path_);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("schema version 99"), std::string::npos);
}

TEST_F(StoreTest, NotAnSqliteFileIsAClearError) {
  fs::create_directories(dir_);
  const std::string bad = (dir_ / "bad.db").string();
  FILE* f = fopen(bad.c_str(), "w");
  fputs("this is not a database, just some text that is long enough to be a header......", f);
  fclose(f);
  auto s = Store::Open(bad);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find(bad), std::string::npos) << s.error().message;
}

}  // namespace
}  // namespace pipette::store
