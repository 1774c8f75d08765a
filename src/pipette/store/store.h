// The results store: one SQLite file with runs, environments, cells and raw samples.
// Every write is its own transaction, so a crash loses nothing already measured.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/util/result.h"

struct sqlite3;

namespace pipette::store {

inline constexpr int kSchemaVersion = 1;

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
  std::string status;  // running | done | interrupted
  int64_t n_cells = 0;
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
  std::string status = "running";       // running | ok | failed
  std::string error;
  std::string stderr_tail;
  int worker_pid = 0;
  std::string started_at;
  std::string finished_at;
};

struct SampleRecord {
  int64_t id = 0;
  int64_t cell_id = 0;
  std::string test;  // pp512, tg128, ttft@64, load, memory
  int rep = 0;       // repetition index within the test, warm-ups first
  bool warmup = false;
  nlohmann::json raw;  // the worker's response: raw facts only
};

struct EnvironmentRecord {
  int64_t id = 0;
  std::string fingerprint_id;
  nlohmann::json facts;
};

class Store {
 public:
  // Opens or creates the store (and its folder). Refuses a store with a newer schema.
  static Result<std::unique_ptr<Store>> Open(const std::string& path);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const std::string& path() const { return path_; }

  Result<int64_t> AddEnvironment(const EnvironmentRecord& env);
  Result<int64_t> BeginRun(const RunRecord& run);
  Status FinishRun(int64_t run_id, const std::string& status);
  Result<int64_t> BeginCell(const CellRecord& cell);
  // Updates everything but the id and run of a cell (status, error, runtime facts...).
  Status UpdateCell(const CellRecord& cell);
  Result<int64_t> AddSample(const SampleRecord& sample);

  Result<std::vector<RunRecord>> Runs();
  Result<RunRecord> Run(int64_t run_id);
  Result<std::optional<int64_t>> LatestRunId();
  Result<EnvironmentRecord> Environment(int64_t id);
  Result<std::vector<CellRecord>> Cells(int64_t run_id);
  Result<std::vector<SampleRecord>> Samples(int64_t cell_id);
  // The most recent recorded (non-warm-up) samples of completed cells, newest first, with the
  // key of their cell: the history a time estimate learns from.
  Result<std::vector<std::pair<std::string, SampleRecord>>> RecentSamples(int limit);

 private:
  Store(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  Status Exec(const std::string& sql);
  sqlite3* db_;
  std::string path_;
};

// Current UTC time as ISO 8601 ("2026-11-29T13:40:00Z").
std::string NowIso8601();

}  // namespace pipette::store
