// The byte channel a controller speaks the protocol through (docs/protocol.md "Framing"): the
// worker's standard input and output, wherever it runs. A local process behind pipes is the
// one transport today (worker/pipe_transport.h). The protocol needs nothing else of a channel:
// no out-of-band signalling, one ordered byte stream each way, and the worker's standard error
// beside it for diagnostics. So an ssh session (`ssh host worker`) or `adb shell worker` can be
// a transport later: one more implementation of this interface, with the JSON lines and frames
// on top unchanged (worker/line_channel.h). Those two are designed for, not written.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "pipette/util/result.h"

namespace pipette::protocol {

using Deadline = std::chrono::steady_clock::time_point;

// Why a transport could not move bytes.
struct IoError : Error {
  enum class Kind {
    kTimedOut,  // the deadline passed first
    kEnded,     // the worker's end is gone (its output ended, or it stopped reading)
    kFailed,    // the system refused (the message says why)
  };
  Kind kind = Kind::kFailed;
};

class Transport {
 public:
  virtual ~Transport() = default;
  // Writes all of `bytes`, waiting no longer than `deadline` for the worker to take them (while
  // waiting, the worker's output is read and kept, so that it cannot block on it).
  virtual Result<void, IoError> Write(std::string_view bytes, Deadline deadline) = 0;
  // Reads at least one and at most `capacity` bytes of the worker's output into `buffer`,
  // waiting until `deadline`.
  virtual Result<size_t, IoError> Read(char* buffer, size_t capacity, Deadline deadline) = 0;
  // Ends the worker's input: a worker exits when its input ends.
  virtual void CloseInput() = 0;
  // Waits until `deadline` for the worker to end (reading and dropping its output meanwhile);
  // then how it ended, as ExitDescription says; kTimedOut when it is still running.
  virtual Result<std::string, IoError> AwaitExit(Deadline deadline) = 0;
  // Ends the worker now (a local process: SIGKILL) and collects it.
  virtual void Kill() = 0;
  // How the worker ended: "exited with status 3", "killed by SIGKILL". Waits for it to end, so
  // ask once its output has ended or after Kill.
  virtual std::string ExitDescription() = 0;
  virtual bool Alive() const = 0;
  virtual int Pid() const = 0;
  // The last few KiB the worker wrote to standard error.
  virtual std::string StderrTail() const = 0;
};

}  // namespace pipette::protocol
