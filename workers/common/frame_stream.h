// Binary frames after a response line (docs/protocol.md "Frames"): a request that answers with
// frames (`score` with `logits: true`) writes its response line here, then one frame per
// position, each a fixed 24-byte header (pipette/protocol/frames.h) and float32 values,
// little-endian.
#pragma once

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace pipette::worker_common {

class FrameStream {
 public:
  FrameStream(std::FILE* out, nlohmann::ordered_json id) : out_(out), id_(std::move(id)) {}

  // Writes the response line (`id` and `ok:true` put first) and flushes it. False when the
  // controller is gone.
  bool Line(const nlohmann::ordered_json& body);
  // One logits frame: magic "PLGT", `position`, `n` values, `t_ns`, then the values.
  bool Logits(int32_t position, int64_t t_ns, const float* values, int32_t n);
  // Ends the frames early: magic "PLGX" with the message's UTF-8 bytes as its payload (cut to
  // the protocol's limit).
  bool Abort(int32_t position, int64_t t_ns, const std::string& message);
  bool Flush() { return std::fflush(out_) == 0; }
  // Whether the response line has been written (later failures must be frames, not lines).
  bool started() const { return started_; }

 private:
  std::FILE* out_;
  nlohmann::ordered_json id_;
  bool started_ = false;
};

}  // namespace pipette::worker_common
