#include "pipette/store/store.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sqlite3.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "pipette/util/shell_quote.h"
#include "pipette/util/utf8.h"

namespace pipette::store {
namespace fs = std::filesystem;
namespace {

// Schema version 1, as Pipette 0.1.0 made it. New stores start here and take every migration.
const char* kBaseSchema = R"sql(
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
INSERT INTO meta(key, value) VALUES ('schema_version', '1');
)sql";

constexpr std::string_view kSqliteHeader("SQLite format 3\0", 16);

// A prepared statement with positional binding, finalized on scope exit.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &st_, nullptr); }
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
  // Text inside the JSON that is not UTF-8 (a device's own words, a worker's output) is stored
  // with each bad byte as U+FFFD: storing what was measured never throws.
  Stmt& Bind(const nlohmann::json& v) {
    return Bind(v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
  Stmt& BindNull() {
    sqlite3_bind_null(st_, ++n_);
    return *this;
  }
  int Step() { return sqlite3_step(st_); }
  int64_t Int(int col) const { return sqlite3_column_int64(st_, col); }
  bool IsNull(int col) const { return sqlite3_column_type(st_, col) == SQLITE_NULL; }
  // Text as UTF-8, each byte that is not as U+FFFD (a worker's stderr cut to its last bytes, a
  // store edited by hand): what is read goes into JSON reports, which refuse anything else.
  std::string Text(int col) const {
    const unsigned char* t = sqlite3_column_text(st_, col);
    return t ? ValidUtf8(std::string(reinterpret_cast<const char*>(t),
                                     static_cast<size_t>(sqlite3_column_bytes(st_, col))))
             : std::string();
  }
  // Parsed in place from SQLite's text, and returned without a copy (a sample's JSON is parsed
  // once per report: its cost is the report's on a run of many samples).
  nlohmann::json Json(int col) const {
    const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st_, col));
    if (!t) return nlohmann::json();
    const char* end = t + sqlite3_column_bytes(st_, col);
    nlohmann::json j = nlohmann::json::parse(t, end, nullptr, false);
    if (j.is_discarded()) return nlohmann::json();
    return j;
  }

 private:
  sqlite3_stmt* st_ = nullptr;
  int rc_;
  int n_ = 0;
};

// How long a write waits for another process's write to end before it is refused.
constexpr int kBusyTimeoutMs = 5000;

// What went wrong, in words: SQLite's own, except for the two a person must act on.
std::string Why(sqlite3* db) {
  switch (sqlite3_errcode(db)) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return fmt::format("the store is locked by another process (SQLITE_BUSY after {} s)",
                         kBusyTimeoutMs / 1000);
    case SQLITE_FULL:
      return "the disk is full (SQLITE_FULL)";
    default:
      break;
  }
  // An I/O error says what the system call that failed said (a full disk while SQLite grows its
  // shared-memory file is an I/O error to SQLite).
  const int sys = sqlite3_system_errno(db);
  if (sys == ENOSPC || sys == EDQUOT)
    return fmt::format("the disk is full ({})", std::strerror(sys));
  if ((sqlite3_errcode(db) == SQLITE_IOERR || sqlite3_errcode(db) == SQLITE_CANTOPEN) && sys != 0) {
    return fmt::format("{} ({})", sqlite3_errmsg(db), std::strerror(sys));
  }
  return sqlite3_errmsg(db);
}

bool Busy(sqlite3* db) {
  const int code = sqlite3_errcode(db);
  return code == SQLITE_BUSY || code == SQLITE_LOCKED;
}

Error DbError(sqlite3* db, const std::string& what) {
  return Error{fmt::format("store: {}: {}", what, Why(db))};
}

const char* kCellColumns =
    "id, run_id, idx, key, model_name, model_path, model_source, model_sha256, "
    "model_file_size, model_info, runtime, runtime_version, runtime_build, params, conditions, "
    "load_cell_id, status, error, stderr_tail, worker_pid, started_at, finished_at, "
    "environment_id, superseded_by";

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
  if (!s.IsNull(22)) c.environment_id = s.Int(22);
  if (!s.IsNull(23)) c.superseded_by = s.Int(23);
  return c;
}

const char* kRunColumns =
    "id, name, experiment_path, config_hash, config_text, pipette_version, pipette_commit, "
    "environment_id, started_at, finished_at, status, n_cells, controller, config_canonical, "
    "only_filter, lock, resumes, interleave";

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
  r.controller = s.Json(12);
  if (!r.controller.is_object()) r.controller = nlohmann::json::object();
  r.config_canonical = s.Text(13);
  r.only = s.Text(14);
  r.lock = s.Json(15);
  if (!r.lock.is_object()) r.lock = nlohmann::json::object();
  r.resumes = s.Int(16);
  r.interleave = s.Int(17) != 0;
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

const std::vector<Migration>& Migrations() {
  static const std::vector<Migration> kMigrations = {
      // 2: who measures a run (for abandoned runs), what it resolved to and was narrowed to
      // (for --resume), the measuring lock; where each cell was measured, and which cell
      // measured it again.
      {2, R"sql(
ALTER TABLE runs ADD COLUMN controller TEXT NOT NULL DEFAULT '{}';
ALTER TABLE runs ADD COLUMN config_canonical TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN only_filter TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN lock TEXT NOT NULL DEFAULT '{}';
ALTER TABLE runs ADD COLUMN resumes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE cells ADD COLUMN environment_id INTEGER REFERENCES environments(id);
ALTER TABLE cells ADD COLUMN superseded_by INTEGER REFERENCES cells(id);
)sql"},
      // 3: the derived-results cache: each finished cell's derived rows, and what they were
      // derived from (metrics/row_cache.h); a report derives the cells it lacks, as before.
      {3, R"sql(
CREATE TABLE derived (
  cell_id INTEGER PRIMARY KEY REFERENCES cells(id), version INTEGER NOT NULL,
  n_samples INTEGER NOT NULL, max_sample_id INTEGER NOT NULL, load_cell_id INTEGER,
  load_n_samples INTEGER NOT NULL, load_max_sample_id INTEGER NOT NULL, rows TEXT NOT NULL);
)sql"},
      // 4: the run visited its cells once per repetition, in rounds (`run --interleave`).
      {4, R"sql(
ALTER TABLE runs ADD COLUMN interleave INTEGER NOT NULL DEFAULT 0;
)sql"},
  };
  return kMigrations;
}

namespace {

// Why a file cannot be a store, before SQLite is asked (it would create or misread it).
Status CheckFile(const std::string& path, OpenMode mode) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    if (mode == OpenMode::kReadOnly) {
      return InputError(fmt::format(
          "no store at {}: run an experiment first (pipette run EXPERIMENT.yaml) or give --store",
          path));
    }
    return {};
  }
  if (fs::is_directory(path, ec)) {
    return InputError(fmt::format("{} is a directory, not a store: give the store's file", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return InputError(fmt::format("cannot read the store {}", path));
  std::string head(kSqliteHeader.size(), '\0');
  in.read(head.data(), std::streamsize(head.size()));
  const auto got = static_cast<size_t>(in.gcount());
  if (got == 0) return {};  // an empty file: SQLite takes it as an empty database
  if (got < head.size() || head != kSqliteHeader) {
    return InputError(
        fmt::format("{} is not an SQLite file, so it is not a Pipette store (results are kept "
                    "in SQLite files, by default results/pipette.db)",
                    path));
  }
  return {};
}

// A URI for `path` that SQLite reads as immutable: nothing can change it, so no lock or
// shared-memory file is needed (a store on a read-only file system).
std::string ImmutableUri(const std::string& path) {
  std::string uri = "file:";
  for (unsigned char c : fs::absolute(path).string()) {
    if (c == '?' || c == '#' || c == '%' || c < 0x20 || c >= 0x7f) {
      uri += fmt::format("%{:02X}", c);
    } else {
      uri += static_cast<char>(c);
    }
  }
  return uri + "?immutable=1";
}

Result<sqlite3*> OpenDb(const std::string& name, int flags) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(name.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    Error e{db ? sqlite3_errmsg(db) : "out of memory"};
    sqlite3_close(db);
    return e;
  }
  return db;
}

// Whether this process may create files beside `path` (SQLite's -shm and -wal).
bool DirectoryWritable(const std::string& path) {
  fs::path dir = fs::absolute(path).parent_path();
  struct statvfs sv {};
  if (::statvfs(dir.c_str(), &sv) == 0 && (sv.f_flag & ST_RDONLY)) return false;
  return ::access(dir.c_str(), W_OK) == 0;
}

bool Readable(sqlite3* db) {
  return sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr) ==
         SQLITE_OK;
}

}  // namespace

namespace {

// Who else has the store at `path`, as far as this machine can tell: the processes holding it
// open, and the runs it records as running. " (...)", to follow a message.
std::string Holders(const std::string& path, sqlite3* db, const env::ProcessTable& processes) {
  std::vector<std::string> who;
  std::map<int, std::string> programs;
  const std::vector<int> holding = processes.OthersHolding(path);
  if (!holding.empty()) {
    for (const auto& e : processes.Programs("")) programs[e.pid] = e.program;
  }
  for (int pid : holding) {
    const auto it = programs.find(pid);
    who.push_back(it == programs.end() ? fmt::format("pid {}", pid)
                                       : fmt::format("pid {} ({})", pid, it->second));
  }
  std::string out = who.empty() ? " (no process on this machine was seen holding it open)"
                                : fmt::format(" (held open by {})", fmt::join(who, ", "));
  Stmt q(db, "SELECT id, controller FROM runs WHERE status = 'running' ORDER BY id");
  while (q.prepared() && q.Step() == SQLITE_ROW) {
    const env::ProcessIdentity controller = env::ProcessIdentity::FromJson(q.Json(1));
    if (controller.empty()) continue;
    out += fmt::format("; run {} is recorded as running by {}", q.Int(0), controller.Describe());
  }
  return out;
}

}  // namespace

Error Store::Refused(const std::string& doing) {
  busy_ = Busy(db_);
  std::string message = fmt::format("{}: {}", doing, Why(db_));
  const int code = sqlite3_errcode(db_);
  if (code == SQLITE_READONLY || code == SQLITE_CANTOPEN || code == SQLITE_PERM) {
    message += " (a read-only file or file system? `pipette report` only reads it)";
  }
  return InputError(message);
}

Result<std::unique_ptr<Store>> Store::Open(const std::string& path, OpenMode mode,
                                           const std::vector<Migration>* migrations,
                                           const env::ProcessTable* processes) {
  std::error_code ec;
  const bool existed = fs::exists(path, ec) || fs::is_symlink(path, ec);
  bool busy = false;
  auto store = OpenFile(path, mode, migrations, processes, &busy);
  if (!store && mode == OpenMode::kReadWrite && !existed && !busy) {
    // A store this call began and could not make (a full disk) is not left half-made. One that
    // another process holds may be that process's, being made: it is left alone.
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(path + suffix, ec);
  }
  return store;
}

Result<std::unique_ptr<Store>> Store::OpenFile(const std::string& path, OpenMode mode,
                                               const std::vector<Migration>* migrations,
                                               const env::ProcessTable* processes, bool* busy) {
  if (auto st = CheckFile(path, mode); !st) return st.error();
  sqlite3* db = nullptr;
  std::vector<std::string> warnings;
  if (mode == OpenMode::kReadWrite) {
    std::error_code ec;
    const auto parent = fs::path(path).parent_path();
    if (!parent.empty()) fs::create_directories(parent, ec);
    auto opened = OpenDb(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    if (!opened) {
      return InputError(fmt::format("cannot open the store {}: {}", path, opened.error().message));
    }
    db = *opened;
  } else {
    auto opened = OpenDb(path, SQLITE_OPEN_READONLY);
    if (opened) sqlite3_busy_timeout(*opened, kBusyTimeoutMs);
    bool immutable = false;
    if (opened && !Readable(*opened) && !DirectoryWritable(path)) {
      // A WAL store on a read-only file system: SQLite cannot make its shared-memory file, and
      // nothing can change the file, so it is read as immutable.
      sqlite3_close(*opened);
      opened = OpenDb(ImmutableUri(path), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
      immutable = true;
    }
    if (!opened || !Readable(*opened)) {
      const std::string why = opened ? Why(*opened) : opened.error().message;
      if (opened) sqlite3_close(*opened);
      return InputError(fmt::format("cannot read the store {}: {}", path, why));
    }
    db = *opened;
    std::error_code ec;
    if (immutable && fs::file_size(path + "-wal", ec) > 0 && !ec) {
      warnings.push_back(fmt::format(
          "{}-wal holds writes not yet in {}, and a read-only file system keeps SQLite from "
          "reading it: the latest results may be missing from this report",
          path, path));
    }
  }
  std::unique_ptr<Store> store(new Store(db, path));
  store->read_only_ = mode == OpenMode::kReadOnly;
  store->warnings_ = std::move(warnings);
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  // A refusal to write says who else has the store, where this machine can tell.
  auto refused = [&](Error e) -> Error {
    *busy = store->busy_;
    if (store->busy_ && processes) e.message += Holders(path, store->db_, *processes);
    return e;
  };
  if (mode == OpenMode::kReadWrite) {
    if (auto s = store->ExecWaiting("PRAGMA journal_mode=WAL"); !s) {
      return refused(store->Refused(fmt::format("cannot write to the store {}", path)));
    }
  }
  if (auto s = store->Exec("PRAGMA foreign_keys=ON"); !s) return s.error();
  if (auto s = store->PrepareSchema(mode, migrations ? *migrations : Migrations()); !s) {
    return refused(s.error());
  }
  if (mode == OpenMode::kReadWrite) {
    // Whether it can be written now: a store another process holds (a transaction left open) is
    // refused before anything is measured, not when the first result would be lost.
    if (!store->ExecWaiting("BEGIN IMMEDIATE")) {
      return refused(store->Refused(fmt::format("cannot write to the store {}", path)));
    }
    if (auto s = store->Exec("ROLLBACK"); !s) return s.error();
  }
  // A read-only store refuses writes, its private migrated copy included.
  if (mode == OpenMode::kReadOnly) {
    if (auto s = store->Exec("PRAGMA query_only = ON"); !s) return s.error();
  }
  return store;
}

// The schema version of the open database: 0 for an empty one.
Result<int> Store::ReadVersion() {
  std::set<std::string> tables;
  {
    Stmt q(db_, "SELECT name FROM sqlite_master WHERE type = 'table'");
    if (!q.prepared()) {
      return InputError(fmt::format("cannot read the store {}: {}", path_, sqlite3_errmsg(db_)));
    }
    while (q.Step() == SQLITE_ROW) tables.insert(q.Text(0));
  }
  if (tables.empty()) return 0;
  if (!tables.count("meta") || !tables.count("runs")) {
    return InputError(fmt::format(
        "{} is an SQLite file but not a Pipette store (it has no Pipette tables)", path_));
  }
  Stmt q(db_, "SELECT value FROM meta WHERE key = 'schema_version'");
  if (!q.prepared() || q.Step() != SQLITE_ROW) {
    return InputError(fmt::format("{}: the store records no schema version", path_));
  }
  const std::string v = q.Text(0);
  const int version = std::atoi(v.c_str());
  if (version <= 0) {
    return InputError(
        fmt::format("{}: the store's schema version '{}' is not one Pipette wrote", path_, v));
  }
  return version;
}

Status Store::PrepareSchema(OpenMode mode, const std::vector<Migration>& migrations) {
  auto found = ReadVersion();
  if (!found) return found.error();
  int version = *found;
  version_found_ = version;
  const int latest = migrations.empty() ? 1 : migrations.back().to;
  if (version > latest) {
    return InputError(
        fmt::format("the store {} has schema version {}, newer than this Pipette understands ({}): "
                    "use a newer pipette, or another --store",
                    path_, version, latest));
  }
  if (version == latest) return {};
  if (mode == OpenMode::kReadOnly) {
    if (version == 0) return InputError(fmt::format("the store {} is empty: no runs yet", path_));
    // Migrate a private copy: a report never writes the file.
    auto mem = OpenDb(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    if (!mem) return Error{fmt::format("store {}: {}", path_, mem.error().message)};
    sqlite3_backup* b = sqlite3_backup_init(*mem, "main", db_, "main");
    const bool copied = b && sqlite3_backup_step(b, -1) == SQLITE_DONE;
    sqlite3_backup_finish(b);
    if (!copied) {
      Error e{fmt::format("cannot read the store {}: {}", path_, sqlite3_errmsg(*mem))};
      sqlite3_close(*mem);
      return e;
    }
    sqlite3_close(db_);
    db_ = *mem;
  }
  // What is done, in words: a new store is made, not migrated.
  const int from = version;
  const std::string doing =
      from == 0 ? fmt::format("cannot create the store {}", path_)
                : fmt::format("cannot migrate the store {} from schema version {} to {}", path_,
                              from, latest);
  // Every step in one transaction: the store is either as it was or at the latest version.
  if (auto s = ExecWaiting("BEGIN IMMEDIATE"); !s) {
    return Refused(fmt::format("{}: {}", doing, from == 0 ? "starting" : "taking the write lock"));
  }
  auto fail = [&](const std::string& what) -> Status {
    Error e = Refused(fmt::format("{}: {}", doing, what));
    (void)Exec("ROLLBACK");
    if (from == 0) {
      e.message += "; nothing was written";
    } else {
      e.message += fmt::format(
          "; nothing was changed. Make it writable, or copy it (cp {} copy.db) and use the copy",
          ShellQuote(path_));
    }
    return e;
  };
  // Another Pipette may have made or migrated it while this one waited for the write lock.
  auto now = ReadVersion();
  if (!now) {
    (void)Exec("ROLLBACK");
    return now.error();
  }
  version = *now;
  if (version == 0) {
    if (!Exec(kBaseSchema)) return fail("creating the tables");
    version = 1;
  }
  for (const Migration& m : migrations) {
    if (m.to <= version) continue;
    if (!Exec(m.sql)) return fail(fmt::format("step to version {}", m.to));
    if (!Exec(fmt::format("UPDATE meta SET value = '{}' WHERE key = 'schema_version'", m.to))) {
      return fail("recording the version");
    }
    version = m.to;
  }
  if (!Exec("COMMIT")) return fail("committing");
  return {};
}

Store::~Store() { sqlite3_close(db_); }

Status Store::ExecWaiting(const std::string& sql) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  while (true) {
    Status st = Exec(sql);
    if (st || !Busy(db_) || std::chrono::steady_clock::now() >= until) return st;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

Status Store::Exec(const std::string& sql) {
  char* msg = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
    const int code = sqlite3_errcode(db_);
    const bool worded = Busy(db_) || code == SQLITE_FULL || code == SQLITE_IOERR;
    Error e{fmt::format("store {}: {}", path_, worded ? Why(db_) : msg ? msg : "error")};
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
         "pipette_commit, environment_id, started_at, status, n_cells, controller, "
         "config_canonical, only_filter, lock, interleave) "
         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.Bind(r.name).Bind(r.experiment_path).Bind(r.config_hash).Bind(r.config_text);
  s.Bind(r.pipette_version).Bind(r.pipette_commit).Bind(r.environment_id);
  s.Bind(r.started_at.empty() ? NowIso8601() : r.started_at).Bind(std::string("running"));
  s.Bind(r.n_cells).Bind(r.controller).Bind(r.config_canonical).Bind(r.only).Bind(r.lock);
  s.Bind(int64_t{r.interleave ? 1 : 0});
  if (s.Step() != SQLITE_DONE) return DbError(db_, "starting a run");
  return sqlite3_last_insert_rowid(db_);
}

Status Store::FinishRun(int64_t run_id, const std::string& status) {
  Stmt s(db_, "UPDATE runs SET status = ?, finished_at = ? WHERE id = ?");
  s.Bind(status).Bind(NowIso8601()).Bind(run_id);
  if (s.Step() != SQLITE_DONE) return DbError(db_, "finishing a run");
  return {};
}

Status Store::NoteControllerPeakRss(int64_t run_id, int64_t bytes) {
  Stmt s(db_,
         "UPDATE runs SET controller = json_set(controller, '$.peak_rss_bytes', ?) WHERE id = ?");
  s.Bind(bytes).Bind(run_id);
  if (s.Step() != SQLITE_DONE) return DbError(db_, "recording the controller's peak memory");
  return {};
}

Status Store::ResumeRun(int64_t run_id, int64_t resumes_seen, const nlohmann::json& controller,
                        const nlohmann::json& lock) {
  Stmt s(db_,
         "UPDATE runs SET status = 'running', finished_at = NULL, controller = ?, lock = ?, "
         "resumes = resumes + 1 WHERE id = ? AND status != 'running' AND resumes = ?");
  s.Bind(controller).Bind(lock).Bind(run_id).Bind(resumes_seen);
  if (s.Step() != SQLITE_DONE) return DbError(db_, "resuming a run");
  if (sqlite3_changes(db_) != 1) {
    return InputError(
        fmt::format("run {} in {} was taken up by another Pipette since it was read: "
                    "see what it left with pipette report --store {} --run {}",
                    run_id, path_, ShellQuote(path_), run_id));
  }
  return {};
}

Result<int64_t> Store::BeginCell(const CellRecord& c, std::optional<int64_t> supersedes) {
  if (auto st = Exec("BEGIN IMMEDIATE"); !st) return st.error();
  Stmt s(db_,
         "INSERT INTO cells(run_id, idx, key, model_name, model_path, model_source, model_sha256, "
         "model_file_size, model_info, runtime, runtime_version, runtime_build, params, "
         "conditions, load_cell_id, status, error, stderr_tail, worker_pid, started_at, "
         "environment_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
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
  if (c.environment_id) {
    s.Bind(*c.environment_id);
  } else {
    s.BindNull();
  }
  if (s.Step() != SQLITE_DONE) {
    Error e = DbError(db_, "starting a cell");
    (void)Exec("ROLLBACK");
    return e;
  }
  const int64_t id = sqlite3_last_insert_rowid(db_);
  if (supersedes) {
    Stmt u(db_,
           "UPDATE cells SET status = 'superseded', superseded_by = ?, finished_at = "
           "COALESCE(finished_at, ?) WHERE id = ? AND run_id = ? AND idx = ? AND status != "
           "'superseded'");
    u.Bind(id).Bind(NowIso8601()).Bind(*supersedes).Bind(c.run_id).Bind(int64_t{c.index});
    if (u.Step() != SQLITE_DONE || sqlite3_changes(db_) != 1) {
      Error e = DbError(db_, fmt::format("superseding cell {}", *supersedes));
      (void)Exec("ROLLBACK");
      return e;
    }
  }
  // One cell per position of a run that is not superseded: never two measuring the same one.
  Stmt live(db_,
            "SELECT count(*) FROM cells WHERE run_id = ? AND idx = ? AND status != 'superseded'");
  live.Bind(c.run_id).Bind(int64_t{c.index});
  if (live.Step() != SQLITE_ROW || live.Int(0) != 1) {
    (void)Exec("ROLLBACK");
    return Error{fmt::format("store {}: cell {} of run {} is measured already", path_, c.index + 1,
                             c.run_id)};
  }
  if (auto st = Exec("COMMIT"); !st) {
    (void)Exec("ROLLBACK");
    return st.error();
  }
  return id;
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

Status Store::PutDerived(const DerivedRecord& d) {
  Stmt s(db_,
         "INSERT OR REPLACE INTO derived(cell_id, version, n_samples, max_sample_id, "
         "load_cell_id, load_n_samples, load_max_sample_id, rows) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  s.Bind(d.cell_id).Bind(d.version).Bind(d.n_samples).Bind(d.max_sample_id);
  if (d.load_cell_id) {
    s.Bind(*d.load_cell_id);
  } else {
    s.BindNull();
  }
  s.Bind(d.load_n_samples).Bind(d.load_max_sample_id).Bind(d.rows);
  if (s.Step() != SQLITE_DONE) return DbError(db_, "storing a cell's derived rows");
  return {};
}

Result<std::vector<int64_t>> Store::MarkAbandonedRuns(const env::ProcessTable& processes) {
  std::vector<int64_t> candidates;
  {
    Stmt q(db_, "SELECT id FROM runs WHERE status = 'running' ORDER BY id");
    while (q.Step() == SQLITE_ROW) candidates.push_back(q.Int(0));
  }
  std::vector<int64_t> marked;
  for (int64_t id : candidates) {
    // Decided and written in one transaction, on the row as it is now: a run that was resumed
    // or finished meanwhile is left alone.
    if (auto st = Exec("BEGIN IMMEDIATE"); !st) return st.error();
    auto r = Run(id);
    if (!r || r->status != "running" || LiveStatus(*r, processes, path_) != "abandoned") {
      (void)Exec("ROLLBACK");
      continue;
    }
    const env::ProcessIdentity who = env::ProcessIdentity::FromJson(r->controller);
    const std::string why =
        who.empty() ? "its controller (an earlier Pipette, which recorded none) is gone"
                    : fmt::format("its controller ({}) ended without finishing it", who.Describe());
    Stmt c(db_,
           "UPDATE cells SET status = 'abandoned', error = ?, finished_at = COALESCE((SELECT "
           "MAX(created_at) FROM samples WHERE cell_id = cells.id), started_at) WHERE run_id = ? "
           "AND status = 'running'");
    c.Bind(why).Bind(id);
    Stmt u(db_,
           "UPDATE runs SET status = 'abandoned', finished_at = COALESCE((SELECT "
           "MAX(s.created_at) FROM samples s JOIN cells c ON c.id = s.cell_id WHERE c.run_id = "
           "runs.id), started_at) WHERE id = ? AND status = 'running'");
    u.Bind(id);
    if (c.Step() != SQLITE_DONE || u.Step() != SQLITE_DONE) {
      Error e = DbError(db_, fmt::format("marking run {} abandoned", id));
      (void)Exec("ROLLBACK");
      return e;
    }
    if (auto st = Exec("COMMIT"); !st) {
      (void)Exec("ROLLBACK");
      return st.error();
    }
    marked.push_back(id);
  }
  return marked;
}

Result<std::string> Store::IntegrityCheck() {
  Stmt s(db_, "PRAGMA integrity_check");
  std::string out;
  while (s.Step() == SQLITE_ROW) out += (out.empty() ? "" : "\n") + s.Text(0);
  if (out.empty()) return DbError(db_, "checking integrity");
  return out;
}

std::string LiveStatus(const RunRecord& run, const env::ProcessTable& processes,
                       const std::string& store_path) {
  if (run.status != "running") return run.status;
  const env::ProcessIdentity who = env::ProcessIdentity::FromJson(run.controller);
  switch (env::CheckLiveness(who, processes)) {
    case env::Liveness::kAlive:
      return "running";
    case env::Liveness::kGone:
      return "abandoned";
    case env::Liveness::kElsewhere:
      return kRunningElsewhere;
    case env::Liveness::kUnknown:
      // Written before controllers were recorded: a live writer holds the file open.
      return processes.OthersHolding(store_path).empty() ? "abandoned" : "running";
  }
  return run.status;
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
  Stmt s(
      db_,
      fmt::format("SELECT {} FROM cells WHERE run_id = ? ORDER BY idx, id", kCellColumns).c_str());
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

Result<std::map<int64_t, DerivedRecord>> Store::DerivedOfRun(int64_t run_id) {
  Stmt s(db_,
         "SELECT d.cell_id, d.version, d.n_samples, d.max_sample_id, d.load_cell_id, "
         "d.load_n_samples, d.load_max_sample_id, d.rows FROM derived d JOIN cells c ON c.id = "
         "d.cell_id WHERE c.run_id = ?");
  if (!s.prepared()) return DbError(db_, "reading derived rows");
  s.Bind(run_id);
  std::map<int64_t, DerivedRecord> out;
  while (s.Step() == SQLITE_ROW) {
    DerivedRecord d;
    d.cell_id = s.Int(0);
    d.version = s.Int(1);
    d.n_samples = s.Int(2);
    d.max_sample_id = s.Int(3);
    if (!s.IsNull(4)) d.load_cell_id = s.Int(4);
    d.load_n_samples = s.Int(5);
    d.load_max_sample_id = s.Int(6);
    d.rows = s.Text(7);
    out.emplace(d.cell_id, std::move(d));
  }
  return out;
}

Result<std::map<int64_t, SampleCount>> Store::SampleCountsOfRun(int64_t run_id) {
  Stmt s(db_,
         "SELECT s.cell_id, count(*), max(s.id) FROM cells c JOIN samples s ON s.cell_id = c.id "
         "WHERE c.run_id = ? GROUP BY s.cell_id");
  if (!s.prepared()) return DbError(db_, "counting samples");
  s.Bind(run_id);
  std::map<int64_t, SampleCount> out;
  while (s.Step() == SQLITE_ROW) out[s.Int(0)] = SampleCount{s.Int(1), s.Int(2)};
  return out;
}

Result<std::vector<SampleRecord>> Store::SamplesOfRun(int64_t run_id,
                                                      const std::vector<std::string>& tests) {
  std::string marks;
  for (size_t i = 0; i < tests.size(); ++i) marks += i ? ", ?" : "?";
  Stmt s(db_, fmt::format("SELECT s.id, s.cell_id, s.test, s.rep, s.warmup, s.raw FROM samples s "
                          "JOIN cells c ON c.id = s.cell_id WHERE c.run_id = ? AND s.test IN "
                          "({}) ORDER BY s.id",
                          marks.empty() ? "NULL" : marks)
                  .c_str());
  if (!s.prepared()) return DbError(db_, "reading samples");
  s.Bind(run_id);
  for (const auto& t : tests) s.Bind(t);
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
