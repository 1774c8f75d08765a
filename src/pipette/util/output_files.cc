#include "pipette/util/output_files.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

namespace pipette {
namespace {

namespace fs = std::filesystem;

// `p` absolute, with every symbolic link of its existing part resolved.
fs::path Normal(const std::string& p) {
  std::error_code ec;
  const fs::path abs = fs::absolute(p, ec);
  if (ec) return fs::path(p).lexically_normal();
  const fs::path canonical = fs::weakly_canonical(abs, ec);
  return ec ? abs.lexically_normal() : canonical;
}

// How an option names its file in a message: "--export-json out.json", "--export md=out.md".
std::string Named(const NamedPath& n) {
  return n.role.ends_with('=') ? n.role + n.path : n.role + " " + n.path;
}

// Why `path` cannot be written, or "" when it can be (as far as can be told before writing).
std::string WhyNotWritable(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (fs::is_directory(st)) return fmt::format("{} is a directory: give a file to write", path);
  if (fs::exists(st) && !fs::is_regular_file(st)) {
    // A device or a pipe (/dev/stdout) is written in place.
    if (::access(path.c_str(), W_OK) != 0) {
      return fmt::format("cannot write {}: {}", path, std::strerror(errno));
    }
    return "";
  }
  // The nearest folder that exists: the writer makes the missing ones below it.
  fs::path dir = Normal(path).parent_path();
  while (!dir.empty() && !fs::exists(dir, ec) && dir != dir.root_path()) dir = dir.parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec)) {
    return fmt::format("cannot write {}: {} is not a folder", path, dir.string());
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    return fmt::format("cannot write {}: the folder {}: {}", path, dir.string(),
                       std::strerror(errno));
  }
  return "";
}

}  // namespace

bool SameFile(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) {
    const bool same = fs::equivalent(a, b, ec);
    if (!ec) return same;
  }
  return Normal(a) == Normal(b);
}

std::vector<NamedPath> StoreFiles(const std::string& role, const std::string& store) {
  std::vector<NamedPath> out = {{role, store}};
  for (const char* sidecar : {"-wal", "-shm", "-journal"}) {
    out.push_back({fmt::format("{} ({} file)", role, sidecar + 1), store + sidecar});
  }
  return out;
}

Status CheckOutputs(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& out = outputs[i];
    if (out.path.empty()) continue;
    for (const NamedPath& in : inputs) {
      if (in.path.empty() || !SameFile(out.path, in.path)) continue;
      return InputError(
          fmt::format("{}: that is {} ({}), which writing would destroy: give another path",
                      Named(out), in.role, in.path));
    }
    for (size_t j = 0; j < i; ++j) {
      const NamedPath& other = outputs[j];
      if (other.path.empty() || !SameFile(out.path, other.path)) continue;
      return InputError(fmt::format("{}: {} writes that file too: give each output its own path",
                                    Named(out), Named(other)));
    }
    if (const std::string why = WhyNotWritable(out.path); !why.empty()) {
      return InputError(fmt::format("{}: {}", Named(out), why));
    }
  }
  return {};
}

std::optional<int> TempFilePid(const std::string& name, const std::string& target_name,
                               const std::string& host) {
  const std::string prefix = target_name + ".tmp";
  if (!name.starts_with(prefix)) return std::nullopt;
  const std::string rest = name.substr(prefix.size());
  const size_t digits = rest.find_first_not_of("0123456789");
  const std::string pid = rest.substr(0, digits);
  if (pid.empty() || pid.size() > 9) return std::nullopt;
  // "NAME.tmpPID" (an older Pipette's, or where the host name is unknown) or "NAME.tmpPID.HOST".
  if (digits != std::string::npos && (host.empty() || rest.substr(digits) != "." + host)) {
    return std::nullopt;
  }
  return std::stoi(pid);
}

std::vector<std::string> RemoveLeftovers(
    const std::string& dir, const std::function<std::optional<int>(const std::string&)>& pid_of,
    const PidAlive& alive) {
  std::vector<std::string> removed;
  std::error_code ec;
  const int self = static_cast<int>(::getpid());
  for (const auto& entry : fs::directory_iterator(dir.empty() ? "." : dir, ec)) {
    std::error_code entry_ec;
    if (!entry.is_regular_file(entry_ec)) continue;
    const std::optional<int> pid = pid_of(entry.path().filename().string());
    if (!pid || *pid <= 0 || *pid == self || alive(*pid)) continue;
    if (fs::remove(entry.path(), entry_ec)) removed.push_back(entry.path().string());
  }
  return removed;
}

std::string ShortHostName() {
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "";
  const std::string host = name;
  return host.substr(0, host.find('.'));
}

}  // namespace pipette
