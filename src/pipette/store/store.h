// The results store: one SQLite file with runs, environments, cells and raw samples.
// Every write is its own transaction, so a crash loses nothing already measured.
//
// Statuses (docs/report-schema.md lists them for users):
//   run:  running | done | interrupted | failed | abandoned
//   cell: running | ok | failed | interrupted | abandoned | superseded
// A run or cell is `abandoned` when the controller that was measuring it is gone from this host
// without finishing it (killed, crashed, the machine rebooted). A cell is `superseded` when
// `run --resume` measured it again: its samples stay, out of every figure.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/env/process.h"
#include "pipette/util/result.h"

struct sqlite3;

namespace pipette::store {

inline constexpr int kSchemaVersion = 4;

// One step of the schema: SQL that takes a store from version `to - 1` to `to`.
struct Migration {
  int to = 0;
  std::string sql;
};
// The steps from version 1 (the first) to kSchemaVersion. A new store is made at version 1 and
// migrated, so a migrated store and a new one always have the same schema.
const std::vector<Migration>& Migrations();

enum class OpenMode {
  kReadWrite,  // creates the store (and its folder) when missing; migrates an older one
  kReadOnly,   // never writes: an older schema is migrated in a private copy in memory
};

// What is shown for a run stored as running whose controller cannot be checked from here.
inline constexpr const char* kRunningElsewhere = "running elsewhere";

struct RunRecord {
  int64_t id = 0;
  std::string name;  // experiment name
  std::string experiment_path;
  std::string config_hash;
  std::string config_text;  // the experiment file as it was
  std::string pipette_version;
  std::string pipette_commit;
  int64_t environment_id = 0;
  std::string started_at;  // ISO 8601 UTC
  std::string finished_at;
  std::string status;  // running | done | interrupted | failed | abandoned
  int64_t n_cells = 0;
  // The controller process measuring it (env::ProcessIdentity as JSON); {} in stores written
  // before schema 2.
  nlohmann::json controller = nlohmann::json::object();
  // The experiment as it resolved on the machine (config::Experiment::Resolved()), kept beside
  // config_hash, which covers only what config_text writes. Runs recorded before that change
  // have config_hash = SHA-256 of this text.
  std::string config_canonical;
  std::string only;  // the run's --only filter ("" for every cell)
  // The machine-wide measuring lock: {"held": bool, "waited_s": ..} (see run/measure_lock.h).
  nlohmann::json lock = nlohmann::json::object();
  int64_t resumes = 0;  // how many times `run --resume` continued it
  // `run --interleave`: the cells were visited once per repetition, in rounds (A B A B ...).
  bool interleave = false;
};

struct CellRecord {
  int64_t id = 0;
  int64_t run_id = 0;
  int index = 0;
  std::string key;
  std::string model_name;
  std::string model_path;
  std::string model_source;
  std::string model_sha256;
  int64_t model_file_size = 0;
  nlohmann::json model_info = nlohmann::json::object();  // from the file and the runtime
  std::string runtime;
  std::string runtime_version;
  nlohmann::json runtime_build = nlohmann::json::object();
  nlohmann::json params = nlohmann::json::object();      // name -> value
  nlohmann::json conditions = nlohmann::json::object();  // load average, free memory at start
  std::optional<int64_t> load_cell_id;  // the cell whose model load served this one
  // running | ok | failed | interrupted | abandoned | superseded
  std::string status = "running";
  std::string error;
  std::string stderr_tail;
  int worker_pid = 0;
  std::string started_at;
  std::string finished_at;
  std::optional<int64_t> environment_id;  // where it was measured, when not the run's
  std::optional<int64_t> superseded_by;   // the cell that measured it again
};

struct SampleRecord {
  int64_t id = 0;
  int64_t cell_id = 0;
  std::string test;  // pp512, tg128, ttft@64, load, memory
  int rep = 0;       // repetition index within the test, warm-ups first
  bool warmup = false;
  nlohmann::json raw;  // the worker's response: raw facts only
};

// A cell's derived rows as `pipette run` stored them when the cell finished (the derived-results
// cache, schema 3): `rows` is metrics/row_cache.h's compact text, which the store never reads.
// The counts say what the rows were derived from, so that a reader can tell they still hold.
struct DerivedRecord {
  int64_t cell_id = 0;
  int64_t version = 0;                                 // metrics::kDerivationVersion of the writer
  int64_t n_samples = 0, max_sample_id = 0;            // the cell's samples then
  std::optional<int64_t> load_cell_id;                 // the cell whose load sample served it, then
  int64_t load_n_samples = 0, load_max_sample_id = 0;  // that cell's samples then
  std::string rows;
};

// How many samples a cell has, and the largest id among them (0 and 0 for none).
struct SampleCount {
  int64_t n = 0, max_id = 0;
  bool operator==(const SampleCount&) const = default;
};

struct EnvironmentRecord {
  int64_t id = 0;
  std::string fingerprint_id;
  nlohmann::json facts;
};

class Store {
 public:
  // Opens the store. Refuses (exit code 2) a file that is not an SQLite file, an SQLite file that
  // is not a Pipette store, and a store with a newer schema; migrates an older one in one
  // transaction (read-write), or in a private in-memory copy (read-only), never half-way.
  // `migrations` replaces Migrations() (tests).
  // A store that cannot be written (kReadWrite: another process holds its write lock past a
  // 5 s wait, a read-only file, a full disk) is refused with exit code 2 before anything is
  // written, saying why; with `processes`, a locked store's refusal names the processes holding
  // it open and the runs it records as running. A new store that could not be made is removed.
  static Result<std::unique_ptr<Store>> Open(const std::string& path,
                                             OpenMode mode = OpenMode::kReadWrite,
                                             const std::vector<Migration>* migrations = nullptr,
                                             const env::ProcessTable* processes = nullptr);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const std::string& path() const { return path_; }
  bool read_only() const { return read_only_; }
  // The schema version the file had when it was opened (before any migration).
  int schema_version_found() const { return version_found_; }
  // What a reader of this store should be told (e.g. writes a read-only open cannot see).
  const std::vector<std::string>& warnings() const { return warnings_; }

  Result<int64_t> AddEnvironment(const EnvironmentRecord& env);
  Result<int64_t> BeginRun(const RunRecord& run);
  Status FinishRun(int64_t run_id, const std::string& status);
  // Records the controller's own peak resident memory (VmHWM) as controller.peak_rss_bytes of the
  // run, when it is about to end.
  Status NoteControllerPeakRss(int64_t run_id, int64_t bytes);
  // Takes a run up again (`run --resume`): running, under `controller`, with `lock`. Fails when
  // it is running, or was resumed since it was read (`resumes_seen` is what was read then).
  Status ResumeRun(int64_t run_id, int64_t resumes_seen, const nlohmann::json& controller,
                   const nlohmann::json& lock);
  // Starts a cell; with `supersedes`, that earlier cell (of the same run and index) becomes
  // `superseded` by this one in the same transaction. Refused when another cell of the run holds
  // that index and is not superseded.
  Result<int64_t> BeginCell(const CellRecord& cell, std::optional<int64_t> supersedes = {});
  // Updates everything but the id and run of a cell (status, error, runtime facts...).
  Status UpdateCell(const CellRecord& cell);
  Result<int64_t> AddSample(const SampleRecord& sample);
  // Stores (or replaces) a cell's derived rows.
  Status PutDerived(const DerivedRecord& derived);
  // Runs stored as running whose controller is gone from this host become `abandoned`, with
  // their running cells; their finish time is their last sample's. Returns their ids.
  Result<std::vector<int64_t>> MarkAbandonedRuns(const env::ProcessTable& processes);
  // SQLite's own check of the whole file: "ok", or what it found.
  Result<std::string> IntegrityCheck();

  Result<std::vector<RunRecord>> Runs();
  Result<RunRecord> Run(int64_t run_id);
  Result<std::optional<int64_t>> LatestRunId();
  Result<EnvironmentRecord> Environment(int64_t id);
  // Every cell of the run, superseded ones included, by index then id.
  Result<std::vector<CellRecord>> Cells(int64_t run_id);
  Result<std::vector<SampleRecord>> Samples(int64_t cell_id);
  // The derived rows stored for the cells of a run, by cell id (none in a store before schema 3).
  Result<std::map<int64_t, DerivedRecord>> DerivedOfRun(int64_t run_id);
  // Each cell of the run that has samples: how many, and their largest id (from the index only).
  Result<std::map<int64_t, SampleCount>> SampleCountsOfRun(int64_t run_id);
  // The samples of the given tests in every cell of a run, in the order they were stored.
  Result<std::vector<SampleRecord>> SamplesOfRun(int64_t run_id,
                                                 const std::vector<std::string>& tests);
  // The most recent recorded (non-warm-up) samples of completed cells, newest first, with the
  // key of their cell: the history a time estimate learns from.
  Result<std::vector<std::pair<std::string, SampleRecord>>> RecentSamples(int limit);

 private:
  Store(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  static Result<std::unique_ptr<Store>> OpenFile(const std::string& path, OpenMode mode,
                                                 const std::vector<Migration>* migrations,
                                                 const env::ProcessTable* processes, bool* busy);
  // The last call's failure as an input error: "DOING: why" (a locked store, a full disk, a
  // read-only file); notes whether the store was locked.
  Error Refused(const std::string& doing);
  Status Exec(const std::string& sql);
  // Exec, tried again while the store is busy, for as long as the busy timeout: SQLite answers
  // SQLITE_BUSY at once, without waiting, where waiting could deadlock (a change of journal mode,
  // a write lock while another connection makes or migrates the file).
  Status ExecWaiting(const std::string& sql);
  Status PrepareSchema(OpenMode mode, const std::vector<Migration>& migrations);
  Result<int> ReadVersion();
  sqlite3* db_;
  std::string path_;
  bool read_only_ = false;
  int version_found_ = 0;
  bool busy_ = false;  // the last refusal was of a store another process held locked
  std::vector<std::string> warnings_;
};

// The status to show for a run: the stored one, except that a run stored as running is
// `abandoned` when its controller is gone from this host and `running elsewhere` when it was
// recorded on another host. A run written before schema 2 recorded no controller: it is running
// while another process holds the store open, else abandoned. Pure: writes nothing.
std::string LiveStatus(const RunRecord& run, const env::ProcessTable& processes,
                       const std::string& store_path);

// Current UTC time as ISO 8601 ("2026-11-29T13:40:00Z").
std::string NowIso8601();

}  // namespace pipette::store
