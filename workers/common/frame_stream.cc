#include "frame_stream.h"

#include <bit>
#include <cstring>

namespace pipette::llama_worker {

static_assert(std::endian::native == std::endian::little,
              "frames carry little-endian values: a big-endian worker would have to swap them");

namespace {

void Put32(unsigned char* p, uint32_t v) { std::memcpy(p, &v, 4); }

}  // namespace

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

bool FrameStream::Header(const char magic[4], int32_t position, uint32_t count, int64_t t_ns) {
  unsigned char h[24];
  std::memcpy(h, magic, 4);
  Put32(h + 4, static_cast<uint32_t>(position));
  Put32(h + 8, count);
  Put32(h + 12, 0);  // reserved
  std::memcpy(h + 16, &t_ns, 8);
  return std::fwrite(h, 1, sizeof h, out_) == sizeof h;
}

bool FrameStream::Logits(int32_t position, int64_t t_ns, const float* values, int32_t n) {
  if (!Header("PLGT", position, static_cast<uint32_t>(n), t_ns)) return false;
  const size_t count = static_cast<size_t>(n);
  return std::fwrite(values, sizeof(float), count, out_) == count;
}

bool FrameStream::Abort(int32_t position, int64_t t_ns, const std::string& message) {
  if (!Header("PLGX", position, static_cast<uint32_t>(message.size()), t_ns)) return false;
  return std::fwrite(message.data(), 1, message.size(), out_) == message.size() &&
         std::fflush(out_) == 0;
}

}  // namespace pipette::llama_worker
