#include "pipette/env/machine_files.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <set>

#include "pipette/util/files.h"
#include "pipette/util/strings.h"

namespace pipette::env {

namespace {

constexpr std::string_view kHeader = "==> ";
constexpr std::string_view kTrailer = " <==";

}  // namespace

std::optional<std::string> LocalFiles::Read(const std::string& path) const {
  Result<std::string> text = ReadFileToString(path);
  if (!text) return std::nullopt;
  return std::move(*text);
}

std::vector<std::string> LocalFiles::List(const std::string& dir) const {
  std::vector<std::string> names;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<std::string> SnapshotFiles::Read(const std::string& path) const {
  auto it = files_.find(path);
  if (it == files_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> SnapshotFiles::List(const std::string& dir) const {
  std::string prefix = dir;
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  prefix += '/';
  std::set<std::string> names;
  for (auto it = files_.lower_bound(prefix); it != files_.end() && it->first.starts_with(prefix);
       ++it) {
    const std::string rest = it->first.substr(prefix.size());
    names.insert(rest.substr(0, rest.find('/')));
  }
  return {names.begin(), names.end()};
}

std::string SnapshotScript() {
  // Globs that match nothing stay literal, and `[ -f ]` skips them.
  return R"(for f in /proc/cpuinfo /proc/meminfo /proc/loadavg /etc/os-release /usr/lib/os-release \
  /proc/sys/kernel/osrelease /proc/sys/kernel/hostname \
  /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor \
  /sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq \
  /sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq \
  /sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq \
  /sys/devices/system/cpu/cpu0/cache/index*/level /sys/devices/system/cpu/cpu0/cache/index*/type \
  /sys/devices/system/cpu/cpu0/cache/index*/size \
  /sys/devices/system/cpu/cpu*/topology/core_cpus_list \
  /sys/devices/system/cpu/cpu*/topology/thread_siblings_list \
  /sys/devices/system/cpu/cpu*/topology/package_cpus_list \
  /sys/devices/system/cpu/cpu*/topology/core_siblings_list \
  /sys/class/thermal/thermal_zone*/type /sys/class/thermal/thermal_zone*/temp \
  /sys/class/hwmon/hwmon*/name /sys/class/hwmon/hwmon*/temp1_input; do
  if [ -f "$f" ] && [ -r "$f" ]; then printf '\n==> %s <==\n' "$f"; cat "$f" 2>/dev/null; fi
done
printf '\n==> @uname-m <==\n'; uname -m
printf '\n==> @nproc <==\n'; getconf _NPROCESSORS_ONLN 2>/dev/null || nproc 2>/dev/null
)";
}

std::map<std::string, std::string> ParseSnapshot(std::string_view text) {
  std::map<std::string, std::string> files;
  std::string path;
  std::string body;
  bool in_file = false;
  auto flush = [&] {
    if (!in_file) return;
    // The script writes a newline before each header: it is not the file's.
    if (!body.empty() && body.back() == '\n') body.pop_back();
    files[path] = body;
  };
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t nl = text.find('\n', pos);
    const std::string_view line =
        text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    if (line.starts_with(kHeader) && line.ends_with(kTrailer) &&
        line.size() > kHeader.size() + kTrailer.size()) {
      flush();
      path =
          std::string(line.substr(kHeader.size(), line.size() - kHeader.size() - kTrailer.size()));
      body.clear();
      in_file = true;
    } else if (in_file) {
      body.append(line);
      if (nl != std::string_view::npos) body += '\n';
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  flush();
  return files;
}

HostFacts HostFactsFrom(const FileSource& files) {
  HostFacts h;
  auto text = [&](const std::string& path) -> std::optional<std::string> {
    auto t = files.Read(path);
    if (!t) return std::nullopt;
    std::string v(Trim(*t));
    if (v.empty()) return std::nullopt;
    return v;
  };
  h.kernel = text("/proc/sys/kernel/osrelease");
  h.hostname = text("/proc/sys/kernel/hostname");
  h.arch = text("@uname-m");
  if (auto n = text("@nproc")) {
    int v = 0;
    auto [p, ec] = std::from_chars(n->data(), n->data() + n->size(), v);
    if (ec == std::errc() && p == n->data() + n->size() && v > 0) h.online = v;
  }
  return h;
}

}  // namespace pipette::env
