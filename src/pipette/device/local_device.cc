#include "pipette/device/local_device.h"

#include <fmt/format.h>

#include <filesystem>

#include "pipette/env/fingerprint.h"

namespace pipette::device {
namespace fs = std::filesystem;

Result<std::unique_ptr<worker::WorkerChannel>> LocalDevice::StartWorker(
    const std::vector<std::string>& argv) {
  if (argv.empty()) return RuntimeError("no worker program to start");
  return (launcher_ ? *launcher_ : processes_).Launch(argv);
}

Result<std::string> LocalDevice::Stage(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    return RuntimeError(fmt::format("{}: no such file to stage on the local device", path));
  }
  return fs::absolute(path).lexically_normal().string();
}

nlohmann::json LocalDevice::Fingerprint(const env::FingerprintOptions& options) {
  return env::CollectFingerprint(options);
}

nlohmann::json LocalDevice::Conditions() { return env::ToJson(env::ReadConditions()); }

std::optional<ProcessMemory> LocalDevice::WorkerMemory(int pid) const {
  if (pid <= 0) return std::nullopt;
  auto text = env::ReadTextFile(fmt::format("/proc/{}/status", pid));
  if (!text) return std::nullopt;
  return ParseProcStatusMemory(*text);
}

ProcessMemory ParseProcStatusMemory(std::string_view status) {
  ProcessMemory m;
  auto kib = [&](std::string_view key) -> int64_t {
    size_t at = 0;
    while (at < status.size()) {
      size_t end = status.find('\n', at);
      if (end == std::string_view::npos) end = status.size();
      std::string_view line = status.substr(at, end - at);
      at = end + 1;
      if (!line.starts_with(key) || line.size() <= key.size() || line[key.size()] != ':') continue;
      line.remove_prefix(key.size() + 1);
      if (line.ends_with(" kB")) line.remove_suffix(3);
      if (auto v = env::ParseInt(line)) return *v * 1024;
      return -1;
    }
    return -1;
  };
  m.rss_bytes = kib("VmRSS");
  m.hwm_bytes = kib("VmHWM");
  return m;
}

}  // namespace pipette::device
