// The worker side of the protocol (docs/protocol.md): turns one request line into one response
// line. It parses the line, checks the envelope ("id", "op"), answers the ops every worker
// answers alike (hello, memory, reset_peak_memory, shutdown) and hands the others to the
// runtime's handlers, then wraps the reply with "id" and "ok". A C++ worker registers its
// handlers and calls Serve (serve.h).
#pragma once

#include <cstdio>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frame_stream.h"
#include "proc_memory.h"
#include "reply.h"

namespace pipette::worker_common {

// What `hello` says about the runtime.
struct RuntimeIdentity {
  std::string program;          // the worker program, for its messages on standard error
  std::string runtime;          // "llama.cpp"
  std::string runtime_version;  // "0.3.36"
  // The free-form build facts (`runtime_build`), asked at each hello.
  std::function<nlohmann::json()> build;
};

class Dispatcher {
 public:
  using Handler = std::function<Reply(const nlohmann::json& request)>;
  // A handler whose response may be followed by frames: it writes its response line itself
  // (`frames->Line`) when it answers with frames; `frames` is null where the channel carries
  // none.
  using FramesHandler = std::function<Reply(const nlohmann::json& request, FrameStream* frames)>;

  // With protocol::kTestOpsEnv set to 1, it also serves the test op (protocol/test_ops.h).
  explicit Dispatcher(RuntimeIdentity identity);

  void Handle(const std::string& op, Handler handler);
  void HandleWithFrames(const std::string& op, FramesHandler handler);
  // A handler that throws answers ok:false, "the handler threw: <what>" (the controller adds the
  // op: "'<op>' failed in the worker: the handler threw: <what>").

  struct Outcome {
    std::string response;   // one JSON object, without the trailing newline
    bool shutdown = false;  // the request was `shutdown`: answer, then exit
    bool written = false;   // the response (line and frames) is already on `out`
  };
  // `frames_out` carries the frames of a handler that answers with frames.
  Outcome Dispatch(std::string_view line, std::FILE* frames_out = nullptr);

  // The ops this worker answers, in the protocol's order (hello's `ops`).
  std::vector<std::string> Ops() const;

  // Reads resident and swapped memory once and keeps the largest VmRSS + VmSwap since the last
  // reset_peak_memory, which `memory` answers as `footprint_peak` (pages swapped out are not in
  // VmHWM; docs/metrics.md "peak RSS"). Serve calls it after each response has gone out, so it
  // adds nothing to the time a request takes.
  void SampleFootprint();
  // Where memory readings come from (default: /proc/self/status); tests give a fake.
  using MemoryReader = std::function<Result<MemoryReading>()>;
  void SetMemoryReader(MemoryReader reader) { read_memory_ = std::move(reader); }

 private:
  Reply Answer(const std::string& op, const nlohmann::json& request, bool* shutdown,
               FrameStream* frames);
  Reply Hello() const;
  Reply ResetPeak();
  Reply Memory();
  void Keep(const MemoryReading& reading);  // into footprint_peak_

  RuntimeIdentity identity_;
  std::map<std::string, FramesHandler> handlers_;
  MemoryReader read_memory_ = ReadMemory;
  std::optional<int64_t> footprint_peak_;  // nullopt: the kernel reports no VmSwap
};

}  // namespace pipette::worker_common
