// The store's file: opened (checked first, read-only or immutable where it must be), its schema
// made and migrated, its integrity checked; the statements every part runs (Exec). Writing is
// store_writes.cc, reading store_reads.cc; the statement they share is statement.h.
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

#include "pipette/store/statement.h"
#include "pipette/util/shell_quote.h"

namespace pipette::store {
namespace fs = std::filesystem;
using namespace internal;  // NOLINT: the store's own statement helpers
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

Result<std::string> Store::IntegrityCheck() {
  Stmt s(db_, "PRAGMA integrity_check");
  std::string out;
  while (s.Step() == SQLITE_ROW) out += (out.empty() ? "" : "\n") + s.Text(0);
  if (out.empty()) return DbError(db_, "checking integrity");
  return out;
}

}  // namespace pipette::store
