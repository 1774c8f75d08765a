// The worker protocol's response lines as the controller reads them (docs/protocol.md): the bytes
// are the worker's output, read by worker::LineChannel after a request of the op the first byte
// picks; a successful response is checked as that op's typed response (protocol::CheckResponse),
// and the frames it may announce are read. Every line of the bytes is also read as a request, as
// a worker reads it (protocol::CheckRequest).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "fake_transport.h"
#include "pipette/protocol/check.h"
#include "pipette/protocol/ops.h"
#include "pipette/worker/line_channel.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.size() < 2) return 0;
  const auto ops = pipette::protocol::Ops();
  const std::string op(ops[static_cast<unsigned char>(bytes[0]) % ops.size()]);
  const bool frames = (bytes[1] & 1) != 0;
  bytes.remove_prefix(2);

  for (std::string_view rest = bytes; !rest.empty();) {
    const size_t nl = rest.find('\n');
    const std::string_view line = rest.substr(0, nl);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    const nlohmann::json request = nlohmann::json::parse(line, nullptr, false);
    if (!request.is_discarded()) (void)pipette::protocol::CheckRequest(request);
  }

  pipette::worker::LineChannel channel(std::make_unique<pipette::fuzz::FakeTransport>(bytes),
                                       "fuzz-worker");
  auto response = channel.Call({{"op", op}}, std::chrono::milliseconds(1000));
  if (!response) return 0;
  (void)pipette::protocol::CheckResponse(op, *response, frames);
  if (frames) {
    const auto n = response->find("frames");
    if (n == response->end() || !n->is_number_unsigned()) return 0;
    pipette::worker::LogitsFrame frame;
    for (uint64_t i = 0; i < std::min<uint64_t>(n->get<uint64_t>(), 16); ++i) {
      if (!channel.ReadFrame(&frame, 8, std::chrono::milliseconds(1000))) break;
    }
  }
  return 0;
}
