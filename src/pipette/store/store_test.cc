#include "pipette/store/store.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "pipette/testing/paths.h"
#include "pipette/util/files.h"

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
  // Runs `sql` on the store's file through a connection of its own (an edit by hand).
  void Exec(const char* sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sql;
    sqlite3_close(db);
  }
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

// A worker's stderr cut to its last bytes can end inside a character, and a device's words need
// not be UTF-8: storing them never throws, and what is read back is UTF-8 (each bad byte U+FFFD),
// so that the JSON reports made from it never throw either. A store edited by hand reads the same.
TEST_F(StoreTest, TextThatIsNotUtf8IsStoredAndReadBackAsUtf8) {
  const std::string r = "\xEF\xBF\xBD";  // U+FFFD
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto env = (*s)->AddEnvironment({0, "abc", {{"cpu_model", "Caf\xE9 CPU"}}});
  ASSERT_TRUE(env.ok()) << env.error().message;
  RunRecord run;
  run.name = "exp";
  run.config_hash = std::string(64, 'f');
  run.environment_id = *env;
  auto rid = (*s)->BeginRun(run);
  ASSERT_TRUE(rid.ok());
  CellRecord c;
  c.run_id = *rid;
  c.key = "model=x";
  c.model_name = "x";
  c.conditions = {{"note", "\xFF"}};
  auto cid = (*s)->BeginCell(c);
  ASSERT_TRUE(cid.ok()) << cid.error().message;
  c.id = *cid;
  c.status = "failed";
  c.error = "worker died: caf\xE9";
  c.stderr_tail = "loaded \xE2\x82";  // a euro sign cut after two of its three bytes
  ASSERT_TRUE((*s)->UpdateCell(c).ok());
  Exec("UPDATE cells SET model_name = CAST(X'78E9' AS TEXT)");

  auto cells = (*s)->Cells(*rid);
  ASSERT_TRUE(cells.ok());
  ASSERT_EQ(cells->size(), 1u);
  const CellRecord& back = (*cells)[0];
  EXPECT_EQ(back.stderr_tail, "loaded " + r + r);
  EXPECT_EQ(back.error, "worker died: caf" + r);
  EXPECT_EQ(back.model_name, "x" + r);  // the hand edit
  EXPECT_EQ(back.conditions["note"], r);
  auto e = (*s)->Environment(*env);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->facts["cpu_model"], "Caf" + r + " CPU");
  const nlohmann::json all = {back.stderr_tail, back.error, back.model_name};
  EXPECT_NO_THROW((void)all.dump());
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
  Exec("UPDATE meta SET value = '99' WHERE key = 'schema_version'");
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

// The columns of every table, in order: what "the same schema" means.
std::string SchemaOf(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  std::string out;
  for (const char* t : {"meta", "environments", "runs", "cells", "samples"}) {
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, (std::string("PRAGMA table_info(") + t + ")").c_str(), -1, &st, nullptr);
    out += t;
    while (sqlite3_step(st) == SQLITE_ROW) {
      out += std::string(" ") + reinterpret_cast<const char*>(sqlite3_column_text(st, 1)) + ":" +
             reinterpret_cast<const char*>(sqlite3_column_text(st, 2));
    }
    out += "\n";
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return out;
}

std::string FileBytes(const std::string& path) { return *ReadFileToString(path); }

const std::string kV1Store = pipette::testing::SourceDir() + "/tests/data/store-v1.db";

TEST_F(StoreTest, AStoreOfTheLastReleaseIsMigratedToTheSameSchemaAsANewOne) {
  fs::create_directories(dir_);
  const std::string old_copy = (dir_ / "v1.db").string();
  fs::copy_file(kV1Store, old_copy);
  {
    auto s = Store::Open(old_copy);
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ((*s)->schema_version_found(), 1);
    auto runs = (*s)->Runs();
    ASSERT_TRUE(runs.ok());
    ASSERT_EQ(runs->size(), 2u);
    EXPECT_EQ((*runs)[0].status, "done");
    EXPECT_TRUE((*runs)[0].controller.empty());  // that release recorded none
    auto cells = (*s)->Cells(1);
    ASSERT_TRUE(cells.ok());
    ASSERT_EQ(cells->size(), 2u);
    EXPECT_FALSE((*cells)[0].superseded_by.has_value());
    auto samples = (*s)->Samples((*cells)[0].id);
    ASSERT_TRUE(samples.ok());
    EXPECT_FALSE(samples->empty());
    auto check = (*s)->IntegrityCheck();
    ASSERT_TRUE(check.ok());
    EXPECT_EQ(*check, "ok");
  }
  { ASSERT_TRUE(Store::Open(path_).ok()); }  // a new store
  EXPECT_EQ(SchemaOf(old_copy), SchemaOf(path_));
  auto again = Store::Open(old_copy);  // migrated once: opens as it is now
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->schema_version_found(), kSchemaVersion);
}

// Two Pipettes started at once on a new store, or on one of the last release: each opens it, the
// first makes or migrates it, the others find it done (never "duplicate column").
TEST_F(StoreTest, StoresOpenedAtOnceAreMadeAndMigratedOnce) {
  fs::create_directories(dir_);
  const std::string old_copy = (dir_ / "v1.db").string();
  fs::copy_file(kV1Store, old_copy);
  for (const std::string& path : {path_, old_copy}) {
    std::vector<std::thread> threads;
    std::vector<std::string> errors(6);
    for (size_t i = 0; i < errors.size(); ++i) {
      threads.emplace_back([&, i] {
        auto s = Store::Open(path);
        if (!s) errors[i] = s.error().message;
      });
    }
    for (auto& t : threads) t.join();
    for (const auto& e : errors) EXPECT_EQ(e, "") << path;
    auto s = Store::Open(path, OpenMode::kReadOnly);
    ASSERT_TRUE(s.ok());
    EXPECT_EQ((*s)->schema_version_found(), kSchemaVersion);
  }
  EXPECT_EQ(SchemaOf(old_copy), SchemaOf(path_));
}

TEST_F(StoreTest, AMigrationThatFailsChangesNothing) {
  fs::create_directories(dir_);
  const std::string old_copy = (dir_ / "v1.db").string();
  fs::copy_file(kV1Store, old_copy);
  const std::string before = SchemaOf(old_copy);
  // The real step, then one that fails: the first must not stay applied.
  std::vector<Migration> steps = Migrations();
  steps.push_back({kSchemaVersion + 1, "ALTER TABLE runs ADD COLUMN broken TEXT; SELECT nope();"});
  auto s = Store::Open(old_copy, OpenMode::kReadWrite, &steps);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().exit_code, 2);
  EXPECT_NE(s.error().message.find("cannot migrate the store"), std::string::npos);
  EXPECT_NE(s.error().message.find("nothing was changed"), std::string::npos) << s.error().message;
  EXPECT_EQ(SchemaOf(old_copy), before);
  auto plain = Store::Open(old_copy, OpenMode::kReadOnly);
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ((*plain)->schema_version_found(), 1);
}

TEST_F(StoreTest, ReadOnlyOpenMigratesInMemoryAndNeverWrites) {
  fs::create_directories(dir_);
  const std::string old_copy = (dir_ / "v1.db").string();
  fs::copy_file(kV1Store, old_copy);
  const std::string bytes = FileBytes(old_copy);
  {
    auto s = Store::Open(old_copy, OpenMode::kReadOnly);
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_TRUE((*s)->read_only());
    auto cells = (*s)->Cells(1);  // new columns read from the copy
    ASSERT_TRUE(cells.ok());
    EXPECT_EQ(cells->size(), 2u);
    RunRecord r;
    EXPECT_FALSE((*s)->BeginRun(r).ok());  // the copy is private, but this open never writes
  }
  // SQLite may make its -shm/-wal side files to read a WAL store; the store itself is untouched.
  EXPECT_EQ(FileBytes(old_copy), bytes);
  std::error_code ec;
  EXPECT_EQ(fs::exists(old_copy + "-wal", ec) ? fs::file_size(old_copy + "-wal") : 0u, 0u);
}

TEST_F(StoreTest, ReadOnlyOpenOfAMissingStoreSaysSoAndCreatesNothing) {
  auto s = Store::Open(path_, OpenMode::kReadOnly);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().exit_code, 2);
  EXPECT_NE(s.error().message.find("no store at " + path_), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_));
}

TEST_F(StoreTest, AnSqliteFileThatIsNotAStoreIsRefused) {
  fs::create_directories(dir_);
  const std::string other = (dir_ / "other.db").string();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(other.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(x)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  for (OpenMode mode : {OpenMode::kReadWrite, OpenMode::kReadOnly}) {
    auto s = Store::Open(other, mode);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().exit_code, 2);
    EXPECT_NE(s.error().message.find("not a Pipette store"), std::string::npos);
  }
}

// A store with one run stored as running under `controller`, with one running cell.
int64_t RunningRun(Store& s, const env::ProcessIdentity& controller) {
  auto env = s.AddEnvironment({0, "fp", nlohmann::json::object()});
  RunRecord r;
  r.environment_id = *env;
  r.controller = controller.ToJson();
  auto id = s.BeginRun(r);
  CellRecord c;
  c.run_id = *id;
  c.key = "k";
  auto cell = s.BeginCell(c);
  EXPECT_TRUE(cell.ok());
  EXPECT_TRUE(s.AddSample({0, *cell, "tg4", 0, false, {{"x", 1}}}).ok());
  return *id;
}

env::ProcessIdentity Proc(const std::string& host, int pid, uint64_t ticks) {
  env::ProcessIdentity p;
  p.host = host;
  p.machine_id = "m-" + host;
  p.boot_id = "boot-1";
  p.pid = pid;
  p.start_ticks = ticks;
  return p;
}

TEST_F(StoreTest, OnlyRunsWhoseControllerIsGoneFromThisHostAreMarkedAbandoned) {
  env::FakeProcessTable table(Proc("here", 100, 5));
  table.Start(200, 7);  // a live controller
  table.Start(300, 9);  // pid 300 lives, but started later than the run's controller
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok());
  const int64_t live = RunningRun(**s, Proc("here", 200, 7));
  const int64_t gone = RunningRun(**s, Proc("here", 250, 3));
  const int64_t reused = RunningRun(**s, Proc("here", 300, 8));
  const int64_t elsewhere = RunningRun(**s, Proc("there", 250, 3));
  env::ProcessIdentity rebooted = Proc("here", 200, 7);
  rebooted.boot_id = "boot-0";  // the same pid and start time, in an earlier boot
  const int64_t before_boot = RunningRun(**s, rebooted);

  // What a report shows, without writing.
  auto runs = (*s)->Runs();
  ASSERT_TRUE(runs.ok());
  std::map<int64_t, std::string> shown;
  for (const auto& r : *runs) shown[r.id] = LiveStatus(r, table, path_);
  EXPECT_EQ(shown[live], "running");
  EXPECT_EQ(shown[gone], "abandoned");
  EXPECT_EQ(shown[reused], "abandoned");
  EXPECT_EQ(shown[elsewhere], "running elsewhere");
  EXPECT_EQ(shown[before_boot], "abandoned");
  for (const auto& r : *runs) EXPECT_EQ(r.status, "running");  // nothing written by that

  auto marked = (*s)->MarkAbandonedRuns(table);
  ASSERT_TRUE(marked.ok()) << marked.error().message;
  EXPECT_EQ(*marked, (std::vector<int64_t>{gone, reused, before_boot}));
  for (int64_t id : {live, elsewhere}) {
    EXPECT_EQ((*s)->Run(id)->status, "running") << id;
    EXPECT_EQ((*(*s)->Cells(id))[0].status, "running") << id;
  }
  for (int64_t id : *marked) {
    auto r = (*s)->Run(id);
    EXPECT_EQ(r->status, "abandoned");
    EXPECT_FALSE(r->finished_at.empty());  // the time of its last sample
    const CellRecord c = (*(*s)->Cells(id))[0];
    EXPECT_EQ(c.status, "abandoned");
    EXPECT_NE(c.error.find("ended without finishing it"), std::string::npos) << c.error;
  }
  auto again = (*s)->MarkAbandonedRuns(table);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->empty());
}

TEST_F(StoreTest, ARunWithNoControllerRecordedIsAbandonedUnlessTheStoreIsHeldOpen) {
  env::FakeProcessTable table(Proc("here", 100, 5));
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok());
  const int64_t id = RunningRun(**s, env::ProcessIdentity{});
  RunRecord r = *(*s)->Run(id);
  EXPECT_EQ(LiveStatus(r, table, path_), "abandoned");
  table.Hold(path_, 4321);  // an earlier Pipette writing it now
  EXPECT_EQ(LiveStatus(r, table, path_), "running");
}

TEST_F(StoreTest, ACellMeasuredAgainSupersedesTheEarlierOneInOneStep) {
  auto s = Store::Open(path_);
  ASSERT_TRUE(s.ok());
  env::FakeProcessTable table(Proc("here", 100, 5));
  const int64_t run = RunningRun(**s, Proc("here", 100, 5));
  const int64_t first = (*(*s)->Cells(run))[0].id;
  ASSERT_TRUE((*s)->FinishRun(run, "interrupted").ok());
  EXPECT_FALSE((*s)->ResumeRun(run + 1, 0, {}, {}).ok());
  EXPECT_FALSE((*s)->ResumeRun(run, 1, {}, {}).ok()) << "resumed since it was read";
  ASSERT_TRUE((*s)->ResumeRun(run, 0, Proc("here", 100, 5).ToJson(), {{"held", true}}).ok());
  EXPECT_FALSE((*s)->ResumeRun(run, 0, {}, {}).ok()) << "already running: another took it up";
  ASSERT_TRUE((*s)->FinishRun(run, "interrupted").ok());
  EXPECT_FALSE((*s)->ResumeRun(run, 0, {}, {}).ok()) << "a plan made before the last resume";
  CellRecord c;
  c.run_id = run;
  c.key = "k";
  auto second = (*s)->BeginCell(c, first);
  ASSERT_TRUE(second.ok());
  auto cells = (*s)->Cells(run);
  ASSERT_EQ(cells->size(), 2u);
  EXPECT_EQ((*cells)[0].status, "superseded");
  EXPECT_EQ((*cells)[0].superseded_by, *second);
  EXPECT_EQ((*cells)[1].status, "running");
  EXPECT_EQ((*s)->Samples(first)->size(), 1u);  // its samples stay
  EXPECT_EQ((*s)->Run(run)->resumes, 1);
  // A cell of another index cannot be superseded by this one, a superseded one not again, and
  // no second live cell can measure a position.
  c.index = 5;
  EXPECT_FALSE((*s)->BeginCell(c, *second).ok());
  c.index = 0;
  EXPECT_FALSE((*s)->BeginCell(c, first).ok());
  EXPECT_FALSE((*s)->BeginCell(c).ok());
  EXPECT_EQ((*s)->Cells(run)->size(), 2u) << "nothing half-written";
}

// SQLITE_FULL from SQLite itself: a page limit the test's own step sets (PRAGMA max_page_count),
// where a full disk cannot be had without root. A new store is created, not migrated, and none is
// left behind.
TEST_F(StoreTest, ANewStoreThatCannotBeMadeSaysSoAndLeavesNoFile) {
  std::vector<Migration> steps = Migrations();
  steps.push_back({kSchemaVersion + 1,
                   "PRAGMA max_page_count = 1; CREATE TABLE filler (x TEXT); "
                   "INSERT INTO filler VALUES (zeroblob(100000));"});
  auto s = Store::Open(path_, OpenMode::kReadWrite, &steps);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().exit_code, 2);
  EXPECT_EQ(s.error().message,
            fmt::format("cannot create the store {}: step to version {}: the disk is full "
                        "(SQLITE_FULL); nothing was written",
                        path_, kSchemaVersion + 1));
  EXPECT_FALSE(fs::exists(path_));
  EXPECT_FALSE(fs::exists(path_ + "-wal"));
}

TEST_F(StoreTest, AStoreAnotherConnectionHoldsIsRefusedNamingWhoHoldsIt) {
  { ASSERT_TRUE(Store::Open(path_).ok()); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  env::FakeProcessTable processes(env::ProcessIdentity::Of("host-a", "", "", 100, 1));
  processes.Hold(path_, 4242);
  processes.AddProgram({4242, 1, "sqlite3"});
  auto s = Store::Open(path_, OpenMode::kReadWrite, nullptr, &processes);
  sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().exit_code, 2);
  EXPECT_EQ(s.error().message,
            "cannot write to the store " + path_ +
                ": the store is locked by another process (SQLITE_BUSY after 5 s) (held open by "
                "pid 4242 (sqlite3))");
  EXPECT_TRUE(fs::exists(path_)) << "another's store is never removed";
  EXPECT_TRUE(Store::Open(path_).ok()) << "free again";
}

}  // namespace
}  // namespace pipette::store
