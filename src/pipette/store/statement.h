// Internal to src/pipette/store: the SQLite statement the store's files share (store.cc opens
// and migrates, store_writes.cc writes, store_reads.cc reads), its errors in words, and the
// reading of a cell's and a run's row.
#pragma once

#include <fmt/format.h>
#include <sqlite3.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "pipette/store/store.h"
#include "pipette/util/utf8.h"

namespace pipette::store::internal {

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
inline constexpr int kBusyTimeoutMs = 5000;

// What went wrong, in words: SQLite's own, except for the two a person must act on.
inline std::string Why(sqlite3* db) {
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

inline bool Busy(sqlite3* db) {
  const int code = sqlite3_errcode(db);
  return code == SQLITE_BUSY || code == SQLITE_LOCKED;
}

inline Error DbError(sqlite3* db, const std::string& what) {
  return Error{fmt::format("store: {}: {}", what, Why(db))};
}

inline const char* const kCellColumns =
    "id, run_id, idx, key, model_name, model_path, model_source, model_sha256, "
    "model_file_size, model_info, runtime, runtime_version, runtime_build, params, conditions, "
    "load_cell_id, status, error, stderr_tail, worker_pid, started_at, finished_at, "
    "environment_id, superseded_by";

CellRecord ReadCell(const Stmt& s);
RunRecord ReadRun(const Stmt& s);

}  // namespace pipette::store::internal
