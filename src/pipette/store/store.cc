#include "pipette/store/store.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <chrono>
#include <ctime>
#include <filesystem>

namespace pipette::store {
namespace {

const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS environments (
  id INTEGER PRIMARY KEY, fingerprint_id TEXT NOT NULL, facts TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY, name TEXT NOT NULL, experiment_path TEXT NOT NULL,
  config_hash TEXT NOT NULL, config_text TEXT NOT NULL, pipette_version TEXT NOT NULL,
  pipette_commit TEXT NOT NULL, environment_id INTEGER REFERENCES environments(id),
  started_at TEXT NOT NULL, finished_at TEXT, status TEXT NOT NULL, n_cells INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS cells (
  id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), idx INTEGER NOT NULL,
  key TEXT NOT NULL, model_name TEXT NOT NULL, model_path TEXT NOT NULL,
  model_source TEXT NOT NULL, model_sha256 TEXT NOT NULL, model_file_size INTEGER NOT NULL,
  model_info TEXT NOT NULL, runtime TEXT NOT NULL, runtime_version TEXT NOT NULL,
  runtime_build TEXT NOT NULL, params TEXT NOT NULL, conditions TEXT NOT NULL,
  load_cell_id INTEGER, status TEXT NOT NULL, error TEXT NOT NULL, stderr_tail TEXT NOT NULL,
  worker_pid INTEGER NOT NULL, started_at TEXT NOT NULL, finished_at TEXT);
CREATE TABLE IF NOT EXISTS samples (
  id INTEGER PRIMARY KEY, cell_id INTEGER NOT NULL REFERENCES cells(id), test TEXT NOT NULL,
  rep INTEGER NOT NULL, warmup INTEGER NOT NULL, raw TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS cells_by_run ON cells(run_id, idx);
CREATE INDEX IF NOT EXISTS samples_by_cell ON samples(cell_id, id);
)sql";

// A prepared statement with positional binding, finalized on scope exit.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : db_(db) {
    rc_ = sqlite3_prepare_v2(db, sql, -1, &st_, nullptr);
  }
  ~Stmt() { sqlite3_finalize(st_); }
  bool prepared() const { return rc_ == SQLITE_OK; }
  Stmt& Bind(int64_t v) {
    sqlite3_bind_int64(st_, ++n_, v);
    return *this;
  }
  Stmt& Bind(const std::string& v) {
    sqlite3_bind_text(st_, ++n_, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& Bind(const nlohmann::json& v) { return Bind(v.dump()); }
  Stmt& BindNull() {
    sqlite3_bind_null(st_, ++n_);
    return *this;
  }
  int Step() { return sqlite3_step(st_); }
  int64_t Int(int col) const { return sqlite3_column_int64(st_, col); }
  bool IsNull(int col) const { return sqlite3_column_type(st_, col) == SQLITE_NULL; }
  std::string Text(int col) const {
    const unsigned char* t = sqlite3_column_text(st_, col);
    return t ? std::string(reinterpret_cast<const char*>(t),
                           static_cast<size_t>(sqlite3_column_bytes(st_, col)))
             : std::string();
  }
  nlohmann::json Json(int col) const {
    auto j = nlohmann::json::parse(Text(col), nullptr, false);
    return j.is_discarded() ? nlohmann::json() : j;
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
  int rc_;
  int n_ = 0;
};

Error DbError(sqlite3* db, const std::string& what) {
  return Error{fmt::format("store: {}: {}", what, sqlite3_errmsg(db))};
}

const char* kCellColumns =
    "id, run_id, idx, key, model_name, model_path, model_source, model_sha256, "
    "model_file_size, model_info, runtime, runtime_version, runtime_build, params, conditions, "
    "load_cell_id, status, error, stderr_tail, worker_pid, started_at, finished_at";

CellRecord ReadCell(const Stmt& s) {
  CellRecord c;
  c.id = s.Int(0);
  c.run_id = s.Int(1);
  c.index = static_cast<int>(s.Int(2));
  c.key = s.Text(3);
  c.model_name = s.Text(4);
  c.model_path = s.Text(5);
  c.model_source = s.Text(6);
  c.model_sha256 = s.Text(7);
  c.model_file_size = s.Int(8);
  c.model_info = s.Json(9);
  c.runtime = s.Text(10);
  c.runtime_version = s.Text(11);
  c.runtime_build = s.Json(12);
  c.params = s.Json(13);
  c.conditions = s.Json(14);
  if (!s.IsNull(15)) c.load_cell_id = s.Int(15);
  c.status = s.Text(16);
  c.error = s.Text(17);
  c.stderr_tail = s.Text(18);
  c.worker_pid = static_cast<int>(s.Int(19));
  c.started_at = s.Text(20);
  c.finished_at = s.Text(21);
  return c;
}

const char* kRunColumns =
    "id, name, experiment_path, config_hash, config_text, pipette_version, pipette_commit, "
    "environment_id, started_at, finished_at, status, n_cells";

RunRecord ReadRun(const Stmt& s) {
  RunRecord r;
  r.id = s.Int(0);
  r.name = s.Text(1);
  r.experiment_path = s.Text(2);
  r.config_hash = s.Text(3);
  r.config_text = s.Text(4);
  r.pipette_version = s.Text(5);
  r.pipette_commit = s.Text(6);
  r.environment_id = s.Int(7);
  r.started_at = s.Text(8);
  r.finished_at = s.Text(9);
  r.status = s.Text(10);
  r.n_cells = s.Int(11);
  return r;
}

}  // namespace

std::string NowIso8601() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Result<std::unique_ptr<Store>> Store::Open(const std::string& path) {
  std::error_code ec;
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    Error e{fmt::format("cannot open the store {}: {}", path,
                        db ? sqlite3_errmsg(db) : "out of memory")};
    sqlite3_close(db);
    return e;
  }
  std::unique_ptr<Store> store(new Store(db, path));
  sqlite3_busy_timeout(db, 5000);
  if (auto s = store->Exec("PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;"); !s) {
    return Error{fmt::format("{} (is {} an SQLite file?)", s.error().message, path)};
  }
  {
    Stmt q(db, "SELECT value FROM meta WHERE key = 'schema_version'");
    if (q.prepared() && q.Step() == SQLITE_ROW) {
      const int v = std::stoi(q.Text(0));
      if (v > kSchemaVersion) {
        return Error{
            fmt::format("the store {} has schema version {}, newer than this Pipette "
                        "understands ({}): use a newer pipette or another --store",
                        path, v, kSchemaVersion)};
      }
    }
  }
  if (auto s = store->Exec(kSchema); !s) return s.error();
  if (auto s = store->Exec(
          fmt::format("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', '{}')",
                      kSchemaVersion));
      !s) {
    return s.error();
  }
  return store;
}

Store::~Store() { sqlite3_close(db_); }

Status Store::Exec(const std::string& sql) {
  char* msg = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
    Error e{fmt::format("store {}: {}", path_, msg ? msg : "error")};
    sqlite3_free(msg);
    return e;
  }
  return {};
}

Result<int64_t> Store::AddEnvironment(const EnvironmentRecord& env) {
  Stmt s(db_, "INSERT INTO environments(fingerprint_id, facts) VALUES (?, ?)");
  s.Bind(env.fingerprint_id).Bind(env.facts);
  if (s.Step() != SQLITE_DONE) return DbError(db_, "adding the environment");
  return sqlite3_last_insert_rowid(db_);
}

Result<int64_t> Store::BeginRun(const RunRecord& r) {
  Stmt s(db_,
         "INSERT INTO runs(name, experiment_path, config_hash, config_text, pipette_version, "
         "pipette_commit, environment_id, started_at, status, n_cells) "
         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.Bind(r.name).Bind(r.experiment_path).Bind(r.config_hash).Bind(r.config_text);
  s.Bind(r.pipette_version).Bind(r.pipette_commit).Bind(r.environment_id);
  s.Bind(r.started_at.empty() ? NowIso8601() : r.started_at).Bind(std::string("running"));
  s.Bind(r.n_cells);
  if (s.Step() != SQLITE_DONE) return DbError(db_, "starting a run");
  return sqlite3_last_insert_rowid(db_);
}

Status Store::FinishRun(int64_t run_id, const std::string& status) {
  Stmt s(db_, "UPDATE runs SET status = ?, finished_at = ? WHERE id = ?");
  s.Bind(status).Bind(NowIso8601()).Bind(run_id);
  if (s.Step() != SQLITE_DONE) return DbError(db_, "finishing a run");
  return {};
}

Result<int64_t> Store::BeginCell(const CellRecord& c) {
  Stmt s(db_,
         "INSERT INTO cells(run_id, idx, key, model_name, model_path, model_source, model_sha256, "
         "model_file_size, model_info, runtime, runtime_version, runtime_build, params, "
         "conditions, load_cell_id, status, error, stderr_tail, worker_pid, started_at) "
         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.Bind(c.run_id).Bind(int64_t{c.index}).Bind(c.key).Bind(c.model_name).Bind(c.model_path);
  s.Bind(c.model_source).Bind(c.model_sha256).Bind(c.model_file_size).Bind(c.model_info);
  s.Bind(c.runtime).Bind(c.runtime_version).Bind(c.runtime_build).Bind(c.params);
  s.Bind(c.conditions);
  if (c.load_cell_id) {
    s.Bind(*c.load_cell_id);
  } else {
    s.BindNull();
  }
  s.Bind(c.status).Bind(c.error).Bind(c.stderr_tail).Bind(int64_t{c.worker_pid});
  s.Bind(c.started_at.empty() ? NowIso8601() : c.started_at);
  if (s.Step() != SQLITE_DONE) return DbError(db_, "starting a cell");
  return sqlite3_last_insert_rowid(db_);
}

Status Store::UpdateCell(const CellRecord& c) {
  Stmt s(db_,
         "UPDATE cells SET model_sha256 = ?, model_file_size = ?, model_info = ?, runtime_version "
         "= ?, runtime_build = ?, params = ?, conditions = ?, load_cell_id = ?, status = ?, "
         "error = ?, stderr_tail = ?, worker_pid = ?, finished_at = ? WHERE id = ?");
  s.Bind(c.model_sha256).Bind(c.model_file_size).Bind(c.model_info).Bind(c.runtime_version);
  s.Bind(c.runtime_build).Bind(c.params).Bind(c.conditions);
  if (c.load_cell_id) {
    s.Bind(*c.load_cell_id);
  } else {
    s.BindNull();
  }
  s.Bind(c.status).Bind(c.error).Bind(c.stderr_tail).Bind(int64_t{c.worker_pid});
  if (c.finished_at.empty()) {
    s.BindNull();
  } else {
    s.Bind(c.finished_at);
  }
  s.Bind(c.id);
  if (s.Step() != SQLITE_DONE) return DbError(db_, "updating a cell");
  return {};
}

Result<int64_t> Store::AddSample(const SampleRecord& r) {
  Stmt s(db_,
         "INSERT INTO samples(cell_id, test, rep, warmup, raw, created_at) "
         "VALUES (?, ?, ?, ?, ?, ?)");
  s.Bind(r.cell_id).Bind(r.test).Bind(int64_t{r.rep}).Bind(int64_t{r.warmup ? 1 : 0});
  s.Bind(r.raw).Bind(NowIso8601());
  if (s.Step() != SQLITE_DONE) return DbError(db_, "adding a sample");
  return sqlite3_last_insert_rowid(db_);
}

Result<std::vector<RunRecord>> Store::Runs() {
  Stmt s(db_, fmt::format("SELECT {} FROM runs ORDER BY id", kRunColumns).c_str());
  if (!s.prepared()) return DbError(db_, "reading runs");
  std::vector<RunRecord> out;
  while (s.Step() == SQLITE_ROW) out.push_back(ReadRun(s));
  return out;
}

Result<RunRecord> Store::Run(int64_t run_id) {
  Stmt s(db_, fmt::format("SELECT {} FROM runs WHERE id = ?", kRunColumns).c_str());
  s.Bind(run_id);
  if (s.Step() != SQLITE_ROW) return InputError(fmt::format("no run {} in {}", run_id, path_));
  return ReadRun(s);
}

Result<std::optional<int64_t>> Store::LatestRunId() {
  Stmt s(db_, "SELECT MAX(id) FROM runs");
  if (s.Step() != SQLITE_ROW) return DbError(db_, "reading runs");
  if (s.IsNull(0)) return std::optional<int64_t>();
  return std::optional<int64_t>(s.Int(0));
}

Result<EnvironmentRecord> Store::Environment(int64_t id) {
  Stmt s(db_, "SELECT id, fingerprint_id, facts FROM environments WHERE id = ?");
  s.Bind(id);
  if (s.Step() != SQLITE_ROW) return Error{fmt::format("no environment {} in {}", id, path_)};
  return EnvironmentRecord{s.Int(0), s.Text(1), s.Json(2)};
}

Result<std::vector<CellRecord>> Store::Cells(int64_t run_id) {
  Stmt s(db_,
         fmt::format("SELECT {} FROM cells WHERE run_id = ? ORDER BY idx", kCellColumns).c_str());
  s.Bind(run_id);
  std::vector<CellRecord> out;
  while (s.Step() == SQLITE_ROW) out.push_back(ReadCell(s));
  return out;
}

Result<std::vector<SampleRecord>> Store::Samples(int64_t cell_id) {
  Stmt s(db_,
         "SELECT id, cell_id, test, rep, warmup, raw FROM samples WHERE cell_id = ? ORDER BY id");
  s.Bind(cell_id);
  std::vector<SampleRecord> out;
  while (s.Step() == SQLITE_ROW) {
    out.push_back(SampleRecord{s.Int(0), s.Int(1), s.Text(2), static_cast<int>(s.Int(3)),
                               s.Int(4) != 0, s.Json(5)});
  }
  return out;
}

Result<std::vector<std::pair<std::string, SampleRecord>>> Store::RecentSamples(int limit) {
  Stmt s(db_,
         "SELECT c.key, s.id, s.cell_id, s.test, s.rep, s.warmup, s.raw FROM samples s "
         "JOIN cells c ON c.id = s.cell_id WHERE s.warmup = 0 AND c.status = 'ok' "
         "ORDER BY s.id DESC LIMIT ?");
  s.Bind(int64_t{limit});
  std::vector<std::pair<std::string, SampleRecord>> out;
  while (s.Step() == SQLITE_ROW) {
    out.emplace_back(s.Text(0), SampleRecord{s.Int(1), s.Int(2), s.Text(3),
                                             static_cast<int>(s.Int(4)), s.Int(5) != 0, s.Json(6)});
  }
  return out;
}

}  // namespace pipette::store
