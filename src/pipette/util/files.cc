#include "pipette/util/files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace pipette {

namespace {

// exit code 2 where the path itself cannot be a file there (bad input), else 1 (the disk).
Error WriteError(const std::string& path, int err) {
  const std::string message = fmt::format("cannot write {}: {}", path, std::strerror(err));
  switch (err) {
    case EISDIR:
    case ENOTDIR:
    case EACCES:
    case EPERM:
    case EROFS:
    case ENOENT:
    case ENAMETOOLONG:
    case ELOOP:
      return InputError(message);
    default:
      return RuntimeError(message);
  }
}

// All of `content` to `fd`; the errno of the failing call, or 0.
int WriteAll(int fd, const std::string& content) {
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    done += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

Status WriteFileAtomically(const std::string& path, const std::string& content,
                           const PidAlive& alive) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path target(path);
  // A symbolic link is followed: the file it names is replaced, the link stays.
  if (fs::is_symlink(target, ec)) {
    const fs::path resolved = fs::weakly_canonical(fs::absolute(target), ec);
    if (!ec) target = resolved;
  }
  const fs::file_status st = fs::status(target, ec);
  if (fs::is_directory(st)) {
    return InputError(fmt::format("cannot write {}: {} is a directory", path, path));
  }
  if (fs::exists(st) && !fs::is_regular_file(st)) {
    // A device or a pipe (/dev/stdout) cannot be replaced: it is written in place.
    const int fd = ::open(target.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) return WriteError(path, errno);
    const int err = WriteAll(fd, content);
    const int closed = ::close(fd) == 0 ? 0 : errno;
    if (err != 0 || closed != 0) return WriteError(path, err != 0 ? err : closed);
    return {};
  }
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec) return WriteError(path, ec.value());
  }
  // Through a temporary file beside it, named after this process (and host): one a killed
  // writer left is removed by the next writer here once its process is gone.
  const std::string host = ShortHostName();
  const std::string name = target.filename().string();
  if (alive) {
    (void)RemoveLeftovers(
        target.parent_path().string(),
        [&](const std::string& n) { return TempFilePid(n, name, host); }, alive);
  }
  const std::string tmp =
      fmt::format("{}.tmp{}{}", target.string(), ::getpid(), host.empty() ? "" : "." + host);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return WriteError(path, errno);
  int err = WriteAll(fd, content);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmp.c_str(), target.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    return WriteError(path, err);
  }
  return {};
}

Result<std::string> ReadFileToString(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto error = [&](const std::string& message) {
    return Error{message, 1, ErrorContext{.file = path}};
  };
  if (fs::is_directory(path, ec)) return error(fmt::format("cannot read {}: a folder", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int e = errno;
    return error(fmt::format("cannot read {}: {}", path,
                             !fs::exists(path, ec) ? "no such file" : std::strerror(e)));
  }
  try {  // libstdc++ throws where the read itself fails (EIO, EISDIR)
    std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) return error(fmt::format("cannot read {}", path));
    return out;
  } catch (const std::ios_base::failure& e) {
    return error(fmt::format("cannot read {}: {}", path, e.what()));
  }
}

}  // namespace pipette
