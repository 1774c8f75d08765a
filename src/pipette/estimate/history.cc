#include "pipette/estimate/history.h"

namespace pipette::estimate {

std::string DeviceKind(const std::string& kind, const std::string& device) {
  if (device.empty() || device == "local") return kind;
  return kind + "@" + device;
}

std::string DeviceOfKey(const std::string& cell_key) {
  static constexpr std::string_view kMark = ",device=";
  const size_t at = cell_key.rfind(kMark);
  return at == std::string::npos ? "" : cell_key.substr(at + kMark.size());
}

std::pair<std::string, std::string> SplitDeviceKind(const std::string& kind) {
  const size_t at = kind.find('@');
  if (at == std::string::npos) return {kind, ""};
  return {kind.substr(0, at), kind.substr(at + 1)};
}

}  // namespace pipette::estimate
