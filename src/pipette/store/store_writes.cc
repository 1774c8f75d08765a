// What the store writes: environments, runs (begun, resumed, finished), cells (begun, superseded,
// updated), samples as they arrive, the derived rows, and the runs a killed controller left
// (marked abandoned).
#include <fmt/format.h>
#include <sqlite3.h>

#include <chrono>
#include <thread>

#include "pipette/store/statement.h"
#include "pipette/store/store.h"
#include "pipette/util/shell_quote.h"

namespace pipette::store {
using namespace internal;  // NOLINT: the store's own statement helpers

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

}  // namespace pipette::store
