// The worker protocol's binary frames (docs/protocol.md "Frames") as the controller reads them:
// worker::LineChannel::ReadFrame over the bytes, frame after frame, each of the value count the
// first byte says, until the stream ends or breaks.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "fake_transport.h"
#include "pipette/worker/line_channel.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.empty()) return 0;
  const size_t n_values = static_cast<unsigned char>(bytes[0]);
  bytes.remove_prefix(1);
  pipette::worker::LineChannel channel(std::make_unique<pipette::fuzz::FakeTransport>(bytes),
                                       "fuzz-worker");
  pipette::worker::LogitsFrame frame;
  for (int i = 0; i < 1024; ++i) {
    if (!channel.ReadFrame(&frame, n_values, std::chrono::milliseconds(1000))) break;
  }
  return 0;
}
