// A streamed completion as it comes over the wire: the bytes, cut into pieces at each 0x1F byte
// (a socket's reads), through http::SseParser, and every event through endpoint::StreamReader
// (the first byte picks completions or chat), as endpoint/stream.cc reads a stream.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "pipette/endpoint/openai_stream.h"
#include "pipette/http/sse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.empty()) return 0;
  const auto api =
      (bytes[0] & 1) ? pipette::endpoint::Api::kChat : pipette::endpoint::Api::kCompletions;
  bytes.remove_prefix(1);
  pipette::http::SseParser parser;
  pipette::endpoint::StreamReader reader(api, 16, "sk-fuzz-secret");
  int64_t t_ns = 0;
  while (true) {
    const size_t cut = bytes.find('\x1f');
    std::vector<pipette::http::SseEvent> events;
    const bool fed = static_cast<bool>(parser.Feed(bytes.substr(0, cut), t_ns += 1000, &events));
    for (const auto& e : events) {
      if (!reader.Add(e)) return 0;  // the stream is an error from here on, as stream.cc has it
    }
    if (!fed || cut == std::string_view::npos) break;
    bytes.remove_prefix(cut + 1);
  }
  (void)parser.Finish();
  return 0;
}
