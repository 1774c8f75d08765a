#include "pipette/protocol/proc_status.h"

#include <charconv>

namespace pipette::protocol {

std::optional<int64_t> ProcStatusBytes(std::string_view status, std::string_view key) {
  size_t at = 0;
  while (at < status.size()) {
    size_t end = status.find('\n', at);
    if (end == std::string_view::npos) end = status.size();
    std::string_view line = status.substr(at, end - at);
    at = end + 1;
    if (!line.starts_with(key) || line.size() <= key.size() || line[key.size()] != ':') continue;
    line.remove_prefix(key.size() + 1);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (!line.ends_with(" kB")) return std::nullopt;
    line.remove_suffix(3);
    int64_t kib = 0;
    const auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), kib);
    if (ec != std::errc() || ptr != line.data() + line.size()) return std::nullopt;
    return kib * 1024;
  }
  return std::nullopt;
}

}  // namespace pipette::protocol
