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

// Why a call did not return a successful response: the message for a person (Error's), the op
// (Error's context.op: the request's op, "frames" while reading frames), the worker, and whether
// the worker is still usable.
struct CallError : Error {
  std::string worker;  // the worker program
  // The worker crashed, hung past the timeout or spoke garbage: it has been killed and serves
  // no further request. Otherwise it answered ok:false (or ended its frames with an abort
  // frame) and is still usable.
  bool broken = false;
};

// A call that failed in the worker, which is still usable; one that broke the worker.
inline CallError FailedCall(std::string op, std::string message, std::string worker = "") {
  CallError e;
  e.message = std::move(message);
  e.context.op = std::move(op);
  e.worker = std::move(worker);
  return e;
}
inline CallError BrokenCall(std::string op, std::string message, std::string worker = "") {
  CallError e = FailedCall(std::move(op), std::move(message), std::move(worker));
  e.broken = true;
  return e;
}

// One binary frame of a response that announced `frames` (docs/protocol.md "Frames").
struct LogitsFrame {
  int64_t position = 0;       // the token index whose next-token logits these are
  int64_t t_ns = 0;           // the worker's clock when they were read
  std::vector<float> logits;  // n_vocab values; the buffer is reused from frame to frame
};

class WorkerChannel {
 public:
  virtual ~WorkerChannel() = default;
  // Sends `request` (an "id" is added) and waits up to `timeout` for the matching response: the
  // whole response object when it says ok.
  virtual Result<nlohmann::json, CallError> Call(nlohmann::json request,
                                                 std::chrono::milliseconds timeout) = 0;
  // Reads the next frame of the last response into `frame`, waiting up to `timeout`;
  // `n_values` is the count the response announced (a frame of another length breaks the
  // worker). An abort frame is a failed request (not broken, its message in the error).
  virtual Result<void, CallError> ReadFrame(LogitsFrame* frame, size_t n_values,
                                            std::chrono::milliseconds timeout) {
    (void)frame, (void)n_values, (void)timeout;
    return BrokenCall("frames", "this channel carries no frames");
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

// The real thing: fork/exec with pipes on stdin, stdout and stderr (Linux/POSIX), the protocol
// spoken over them (line_channel.h, pipe_transport.h).
class ProcessLauncher : public WorkerLauncher {
 public:
  Result<std::unique_ptr<WorkerChannel>> Launch(const std::vector<std::string>& argv) override;
};

}  // namespace pipette::worker
