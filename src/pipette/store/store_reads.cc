// What the store reads back: runs, environments, cells, samples (of a cell, a run, the most
// recent), the derived rows and the sample counts that tell whether they are current; a run's
// status as this machine sees it (LiveStatus).
#include <fmt/format.h>
#include <sqlite3.h>

#include "pipette/store/statement.h"
#include "pipette/store/store.h"

namespace pipette::store {
namespace internal {

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

}  // namespace internal

using namespace internal;  // NOLINT: the store's own statement helpers

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
