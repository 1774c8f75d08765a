#include "proc_memory.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "pipette/protocol/proc_status.h"

namespace pipette::worker_common {
Result<MemoryReading> ParseProcStatus(const std::string& status) {
  const std::optional<int64_t> rss = protocol::ProcStatusBytes(status, "VmRSS");
  const std::optional<int64_t> hwm = protocol::ProcStatusBytes(status, "VmHWM");
  if (!rss || !hwm) return Error{"cannot read VmRSS/VmHWM from /proc/self/status"};
  return MemoryReading{*rss, *hwm, protocol::ProcStatusBytes(status, "VmSwap")};
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
