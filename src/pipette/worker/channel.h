// Talking to a worker: one request line out, one response line back (docs/protocol.md).
// Process launching sits behind WorkerLauncher so the runner is testable without real workers.
#pragma once

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipette/util/result.h"

namespace pipette::worker {

// How a call ended when it did not return a successful response.
enum class CallFailure {
  kNone,
  kRequestFailed,  // the worker answered ok:false; it is still usable
  kWorkerBroken,   // crashed, hung past the timeout, or spoke garbage: it has been killed
};

struct CallResult {
  nlohmann::json response;  // the whole response object when ok
  CallFailure failure = CallFailure::kNone;
  std::string error;  // why, for a person
  bool ok() const { return failure == CallFailure::kNone; }
};

class WorkerChannel {
 public:
  virtual ~WorkerChannel() = default;
  // Sends `request` (an "id" is added) and waits up to `timeout` for the matching response.
  virtual CallResult Call(nlohmann::json request, std::chrono::milliseconds timeout) = 0;
  // The last few KiB the worker wrote to standard error.
  virtual std::string StderrTail() const = 0;
  virtual int Pid() const = 0;
  virtual bool Alive() const = 0;
  // Asks the worker to exit, waits up to `grace`, then kills it.
  virtual void Shutdown(std::chrono::milliseconds grace) = 0;
};

class WorkerLauncher {
 public:
  virtual ~WorkerLauncher() = default;
  virtual Result<std::unique_ptr<WorkerChannel>> Launch(const std::vector<std::string>& argv) = 0;
};

// The real thing: fork/exec with pipes on stdin, stdout and stderr (Linux/POSIX).
class ProcessLauncher : public WorkerLauncher {
 public:
  Result<std::unique_ptr<WorkerChannel>> Launch(const std::vector<std::string>& argv) override;
};

}  // namespace pipette::worker
