// A worker's output from the fuzzer's bytes (protocol::Transport): every write is taken, every
// read hands over what is left of the bytes, then the worker's output ends. For the protocol
// harnesses (protocol_lines_fuzz.cc, protocol_frames_fuzz.cc).
#pragma once

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

#include "pipette/protocol/transport.h"

namespace pipette::fuzz {

class FakeTransport : public protocol::Transport {
 public:
  explicit FakeTransport(std::string_view output) : output_(output) {}

  Result<void, protocol::IoError> Write(std::string_view, protocol::Deadline) override {
    if (!alive_) return Ended();
    return {};
  }
  Result<size_t, protocol::IoError> Read(char* buffer, size_t capacity,
                                         protocol::Deadline) override {
    if (output_.empty()) return Ended();
    // Short reads, as a pipe gives them: a line or a frame may arrive in pieces.
    const size_t n = std::min({capacity, output_.size(), size_t{4096}});
    std::memcpy(buffer, output_.data(), n);
    output_.remove_prefix(n);
    return n;
  }
  void CloseInput() override {}
  Result<std::string, protocol::IoError> AwaitExit(protocol::Deadline) override {
    alive_ = false;
    return std::string("exited with status 0");
  }
  void Kill() override { alive_ = false; }
  std::string ExitDescription() override { return "exited with status 0"; }
  bool Alive() const override { return alive_; }
  int Pid() const override { return 1; }
  std::string StderrTail() const override { return {}; }

 private:
  static protocol::IoError Ended() {
    protocol::IoError e;
    e.kind = protocol::IoError::Kind::kEnded;
    e.message = "the worker's output ended";
    return e;
  }
  std::string_view output_;
  bool alive_ = true;
};

}  // namespace pipette::fuzz
