#include "pipette/util/files.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace pipette {

Status WriteFileAtomically(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  const std::string tmp = fmt::format("{}.tmp{}", path, ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << content;
    out.flush();
    if (!out.good()) {
      fs::remove(tmp, ec);
      return Error{fmt::format("cannot write {}", path)};
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return Error{fmt::format("cannot write {}: {}", path, ec.message())};
  }
  return {};
}

Result<std::string> ReadFileToString(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) return Error{fmt::format("cannot read {}: a folder", path)};
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int e = errno;
    return Error{fmt::format("cannot read {}: {}", path,
                             !fs::exists(path, ec) ? "no such file" : std::strerror(e))};
  }
  try {  // libstdc++ throws where the read itself fails (EIO, EISDIR)
    std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) return Error{fmt::format("cannot read {}", path)};
    return out;
  } catch (const std::ios_base::failure& e) {
    return Error{fmt::format("cannot read {}: {}", path, e.what())};
  }
}

}  // namespace pipette
