// The machine-wide measuring lock: while one Pipette measures, another on the same machine waits
// (two runs at once measure each other's load, not the model). An flock on one file per machine
// (/run/lock/pipette-measure.lock, else /tmp/pipette-measure.lock, or $PIPETTE_LOCK_FILE); the
// kernel drops it when its holder ends, however it ends, so a killed run never leaves it taken.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "pipette/util/result.h"

namespace pipette::run {

// $PIPETTE_LOCK_FILE when set, else /run/lock/pipette-measure.lock where /run/lock is writable,
// else /tmp/pipette-measure.lock.
std::string DefaultLockPath();

struct LockOptions {
  std::string path = DefaultLockPath();
  double wait_s = 1800;  // how long to wait for another run to finish
  bool no_wait = false;  // refuse at once when another Pipette holds it
  // Told once that we wait, and who for; then every minute.
  std::function<void(const std::string&)> say;
  const std::atomic<bool>* stop = nullptr;  // Ctrl-C while waiting
};

class MeasureLock {
 public:
  // Takes the lock, waiting as the options say. `holder` (who we are: pid, experiment, store) is
  // written into the lock file for whoever waits next. Refused (exit code 2) when the wait ends,
  // naming who holds it; exit code 130 when stopped while waiting.
  static Result<std::unique_ptr<MeasureLock>> Acquire(const LockOptions& options,
                                                      const nlohmann::json& holder);
  ~MeasureLock();
  MeasureLock(const MeasureLock&) = delete;
  MeasureLock& operator=(const MeasureLock&) = delete;

  // Adds facts for the next waiter (the run id, once known).
  void Describe(const nlohmann::json& more);
  // What the run records: {"held": true, "path": .., "waited_s": ..}.
  nlohmann::json Record() const;

 private:
  MeasureLock(int fd, std::string path, double waited_s, nlohmann::json holder)
      : fd_(fd), path_(std::move(path)), waited_s_(waited_s), holder_(std::move(holder)) {}
  void WriteHolder();
  int fd_;
  std::string path_;
  double waited_s_;
  nlohmann::json holder_;
};

// "pid 123 (run 4 of results/pipette.db, ex.yaml, since 2026-12-01T10:00:00Z)" from the holder
// facts a lock file holds; "an unknown process" when they are missing.
std::string DescribeHolder(const nlohmann::json& holder);

}  // namespace pipette::run
