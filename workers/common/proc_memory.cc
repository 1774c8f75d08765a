#include "proc_memory.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

namespace pipette::worker_common {
namespace {

// Parses the value of a "Name:   1234 kB" line of /proc/self/status into bytes.
std::optional<int64_t> ParseKbLine(const std::string& line) {
  std::istringstream in(line.substr(line.find(':') + 1));
  int64_t value = 0;
  std::string unit;
  if (!(in >> value >> unit) || unit != "kB") return std::nullopt;
  return value * 1024;
}

}  // namespace

Result<MemoryReading> ParseProcStatus(const std::string& status) {
  std::istringstream in(status);
  std::optional<int64_t> rss;
  std::optional<int64_t> hwm;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) rss = ParseKbLine(line);
    if (line.rfind("VmHWM:", 0) == 0) hwm = ParseKbLine(line);
  }
  if (!rss || !hwm) return Error{"cannot read VmRSS/VmHWM from /proc/self/status"};
  return MemoryReading{*rss, *hwm};
}

Result<MemoryReading> ReadMemory() {
  std::ifstream status("/proc/self/status");
  if (!status) return Error{"cannot read VmRSS/VmHWM from /proc/self/status"};
  std::stringstream text;
  text << status.rdbuf();
  return ParseProcStatus(text.str());
}

Status ResetPeakMemory() {
  const int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    return Error{std::string("cannot open /proc/self/clear_refs: ") + std::strerror(errno)};
  }
  const ssize_t written = write(fd, "5", 1);
  const int write_errno = errno;
  close(fd);
  if (written != 1) {
    return Error{std::string("cannot write /proc/self/clear_refs: ") + std::strerror(write_errno)};
  }
  return {};
}

}  // namespace pipette::worker_common
