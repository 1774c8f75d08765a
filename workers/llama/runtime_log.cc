#include "runtime_log.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <utility>

namespace pipette::llama_worker {

std::string FlashAttnFromLog(std::string_view log, const std::string& requested) {
  // Each deciding message of llama.cpp (src/llama-context.cpp) and what it means.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kLines = {{
      {": Flash Attention enabled", "on"},
      {": Flash Attention not supported, set to disabled", "off"},
      {": enabling flash_attn since it is required for ", "on"},
      {" - forcing off", "off"},  // "flash_attn is not compatible with Grok - forcing off"
      {": disabling flash attention, ", "off"},  // training: no backward pass
  }};
  std::string out = requested;
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string_view::npos) end = log.size();
    const std::string_view line = log.substr(start, end - start);
    start = end + 1;
    const bool about_fa = line.find("flash_attn") != std::string_view::npos ||
                          line.find("Flash Attention") != std::string_view::npos ||
                          line.find("flash attention") != std::string_view::npos;
    if (!about_fa) continue;
    for (const auto& [text, meaning] : kLines) {
      if (line.find(text) != std::string_view::npos) out = meaning;
    }
  }
  return out;
}

std::optional<int64_t> SwaCacheCellsFromLog(std::string_view log) {
  // The space before "SWA" keeps out "creating non-SWA KV cache, size = N cells".
  constexpr std::string_view kKey = " SWA KV cache, size = ";
  const size_t at = log.rfind(kKey);
  if (at == std::string_view::npos) return std::nullopt;
  int64_t cells = 0;
  const char* from = log.data() + at + kKey.size();
  const char* end = log.data() + log.size();
  auto [ptr, ec] = std::from_chars(from, end, cells);
  if (ec != std::errc() || ptr == from) return std::nullopt;
  return cells;
}

std::optional<int64_t> KvBufferBytesFromLog(std::string_view log) {
  // "llama_kv_cache:        CPU KV buffer size =     6.00 MiB": one line per cache (two for a
  // model with sliding-window layers) and backend buffer.
  constexpr std::string_view kKey = " KV buffer size = ";
  double mib = 0;
  bool any = false;
  for (size_t at = log.find(kKey); at != std::string_view::npos; at = log.find(kKey, at + 1)) {
    size_t from = at + kKey.size();
    while (from < log.size() && log[from] == ' ') ++from;
    double v = 0;
    auto [ptr, ec] = std::from_chars(log.data() + from, log.data() + log.size(), v);
    if (ec != std::errc() || ptr == log.data() + from) return std::nullopt;
    if (std::string_view(ptr, std::min<size_t>(4, size_t(log.data() + log.size() - ptr))) !=
        " MiB") {
      return std::nullopt;
    }
    mib += v;
    any = true;
  }
  if (!any) return std::nullopt;
  return static_cast<int64_t>(std::llround(mib * 1024 * 1024));
}

std::string LoadModeFromLog(std::string_view log) {
  constexpr std::string_view kKey = "(load_mode = ";
  const size_t at = log.rfind(kKey);
  if (at == std::string_view::npos) return "";
  const size_t from = at + kKey.size();
  const size_t to = log.find(')', from);
  if (to == std::string_view::npos) return "";
  return std::string(log.substr(from, to - from));
}

}  // namespace pipette::llama_worker
