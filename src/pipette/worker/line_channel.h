// The protocol over any transport (docs/protocol.md "Framing" and "Frames"): numbers each
// request, writes it as one JSON line, reads the matching response line and the binary frames
// a response announces, and turns every way a worker can fail into a CallError. A timeout, a
// line that is not a protocol message, a wrong id or a broken frame kills the worker (broken);
// `ok:false` or an abort frame leaves it usable.
#pragma once

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "pipette/protocol/transport.h"
#include "pipette/worker/channel.h"

namespace pipette::worker {

class LineChannel : public WorkerChannel {
 public:
  // `name` is the worker program, for errors.
  LineChannel(std::unique_ptr<protocol::Transport> transport, std::string name);
  ~LineChannel() override;

  Result<nlohmann::json, CallError> Call(nlohmann::json request,
                                         std::chrono::milliseconds timeout) override;
  Result<void, CallError> ReadFrame(LogitsFrame* frame, size_t n_values,
                                    std::chrono::milliseconds timeout) override;
  std::string StderrTail() const override { return transport_->StderrTail(); }
  int Pid() const override { return transport_->Pid(); }
  bool Alive() const override { return transport_->Alive() && !shut_down_; }
  void Shutdown(std::chrono::milliseconds grace) override;

 private:
  // A broken worker: killed if still running, and `why` as the call's error.
  CallError Broken(const std::string& op, std::string why);
  // Fills `dst` with the next `n` bytes of output (buffered first, then from the transport);
  // the reason when the worker died or the deadline passed.
  Result<void, CallError> Take(char* dst, size_t n, protocol::Deadline deadline);

  std::unique_ptr<protocol::Transport> transport_;
  std::string name_;
  std::string buffer_;  // output read beyond the last response line
  int64_t next_id_ = 0;
  bool shut_down_ = false;
};

}  // namespace pipette::worker
