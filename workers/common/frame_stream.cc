#include "frame_stream.h"

#include <algorithm>
#include <bit>

#include "pipette/protocol/frames.h"

namespace pipette::worker_common {

static_assert(std::endian::native == std::endian::little,
              "frames carry little-endian values: a big-endian worker would have to swap them");

bool FrameStream::Line(const nlohmann::ordered_json& body) {
  nlohmann::ordered_json out;
  out["id"] = id_;
  out["ok"] = true;
  for (const auto& [key, value] : body.items()) out[key] = value;
  const std::string line =
      out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  started_ = true;
  return std::fwrite(line.data(), 1, line.size(), out_) == line.size() && std::fflush(out_) == 0;
}

bool FrameStream::Logits(int32_t position, int64_t t_ns, const float* values, int32_t n) {
  unsigned char h[protocol::kFrameHeaderBytes];
  protocol::WriteLogitsFrameHeader(position, static_cast<uint32_t>(n), t_ns, h);
  if (std::fwrite(h, 1, sizeof h, out_) != sizeof h) return false;
  const size_t count = static_cast<size_t>(n);
  return std::fwrite(values, sizeof(float), count, out_) == count;
}

bool FrameStream::Abort(int32_t position, int64_t t_ns, const std::string& message) {
  const size_t n = std::min<size_t>(message.size(), protocol::kMaxAbortMessageBytes);
  unsigned char h[protocol::kFrameHeaderBytes];
  protocol::WriteAbortFrameHeader(position, static_cast<uint32_t>(n), t_ns, h);
  return std::fwrite(h, 1, sizeof h, out_) == sizeof h &&
         std::fwrite(message.data(), 1, n, out_) == n && std::fflush(out_) == 0;
}

}  // namespace pipette::worker_common
