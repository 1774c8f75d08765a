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

// One binary frame of a response that announced `frames` (docs/protocol.md "Frames").
struct LogitsFrame {
  int64_t position = 0;       // the token index whose next-token logits these are
  int64_t t_ns = 0;           // the worker's clock when they were read
  std::vector<float> logits;  // n_vocab values; the buffer is reused from frame to frame
};

class WorkerChannel {
 public:
  virtual ~WorkerChannel() = default;
  // Sends `request` (an "id" is added) and waits up to `timeout` for the matching response.
  virtual CallResult Call(nlohmann::json request, std::chrono::milliseconds timeout) = 0;
  // Reads the next frame of the last response, waiting up to `timeout`; `n_values` is the count
  // the response announced (a frame of another length breaks the worker). An abort frame is a
  // failed request (kRequestFailed, its message in `error`); the worker stays usable. The
  // response of `CallResult` is left empty.
  virtual CallResult ReadFrame(LogitsFrame* frame, size_t n_values,
                               std::chrono::milliseconds timeout) {
    (void)frame, (void)n_values, (void)timeout;
    return {{}, CallFailure::kWorkerBroken, "this channel carries no frames"};
  }
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
