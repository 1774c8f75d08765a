#include "pipette/run/measure_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "pipette/util/json_read.h"
#include "pipette/util/strings.h"

namespace pipette::run {
namespace {

std::string ReadFd(int fd) {
  std::string out;
  char buf[4096];
  off_t at = 0;
  while (true) {
    const ssize_t n = ::pread(fd, buf, sizeof buf, at);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
    at += n;
  }
  return out;
}

}  // namespace

std::string DefaultLockPath() {
  const char* p = std::getenv("PIPETTE_LOCK_FILE");
  if (p && *p) return p;
  // The system's folder for lock files (a tmpfs, emptied at boot), else the temporary folder.
  if (::access("/run/lock", W_OK | X_OK) == 0) return "/run/lock/pipette-measure.lock";
  return "/tmp/pipette-measure.lock";
}

std::string DescribeHolder(const nlohmann::json& holder) {
  // Another process's lock file: a field of another type reads as absent.
  using json_read::String;
  if (!holder.is_object() || !holder.contains("pid")) return "an unknown process";
  std::string what;
  auto add = [&](const std::string& s) { what += (what.empty() ? "" : ", ") + s; };
  if (holder.contains("run_id")) {
    add(fmt::format("run {} of {}", holder.at("run_id").dump(), String(holder, "store", "?")));
  } else if (!String(holder, "store").empty()) {
    add("store " + String(holder, "store"));
  }
  if (const std::string c = String(holder, "command"); !c.empty()) add(c);
  if (const std::string t = String(holder, "since"); !t.empty()) add("since " + t);
  return fmt::format("pid {}{}", holder.at("pid").dump(), what.empty() ? "" : " (" + what + ")");
}

Result<std::unique_ptr<MeasureLock>> MeasureLock::Acquire(const LockOptions& options,
                                                          const nlohmann::json& holder) {
  int fd = ::open(options.path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd >= 0) {
    ::fchmod(fd, 0666);  // every user of the machine shares one lock (fails harmlessly if not ours)
  } else {
    fd = ::open(options.path.c_str(), O_RDONLY | O_CLOEXEC);  // flock needs no write access
  }
  if (fd < 0) {
    return InputError(
        fmt::format("cannot open the measuring lock {}: {} (set PIPETTE_LOCK_FILE "
                    "to a file every Pipette on this machine can open)",
                    options.path, std::strerror(errno)));
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto waited = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  double next_say = 0;
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) {
      const int err = errno;
      ::close(fd);
      return Error{
          fmt::format("cannot take the measuring lock {}: {}", options.path, std::strerror(err))};
    }
    const nlohmann::json other = nlohmann::json::parse(ReadFd(fd), nullptr, false);
    const std::string who = DescribeHolder(other);
    if (options.no_wait) {
      ::close(fd);
      return InputError(
          fmt::format("another Pipette is measuring on this machine: {}. --no-wait "
                      "refuses at once: run again when it is done, or leave out "
                      "--no-wait to wait for it",
                      who));
    }
    if (waited() >= options.wait_s) {
      ::close(fd);
      return InputError(
          fmt::format("another Pipette is still measuring on this machine after "
                      "{}: {}. Run again when it is done, or wait longer with "
                      "--lock-timeout SECONDS",
                      FormatDuration(waited()), who));
    }
    if (options.stop && options.stop->load()) {
      ::close(fd);
      return Error{"interrupted while waiting for the measuring lock", 130};
    }
    if (options.say && waited() >= next_say) {
      options.say(
          fmt::format("waiting for another Pipette measuring on this machine: {} (up to "
                      "{} more; --no-wait refuses at once)",
                      who, FormatDuration(options.wait_s - waited())));
      next_say = waited() + 60;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::unique_ptr<MeasureLock> lock(new MeasureLock(fd, options.path, waited(), holder));
  lock->WriteHolder();
  return lock;
}

MeasureLock::~MeasureLock() {
  if (::ftruncate(fd_, 0) != 0) {
    // A read-only lock file keeps the last holder's facts; the lock itself is what counts.
  }
  ::flock(fd_, LOCK_UN);
  ::close(fd_);
}

void MeasureLock::Describe(const nlohmann::json& more) {
  holder_.update(more);
  WriteHolder();
}

void MeasureLock::WriteHolder() {
  const std::string text = holder_.dump() + "\n";
  if (::ftruncate(fd_, 0) != 0) return;  // opened read-only: nothing to tell the next waiter
  if (::pwrite(fd_, text.data(), text.size(), 0) < 0) return;
}

nlohmann::json MeasureLock::Record() const {
  return {{"held", true}, {"path", path_}, {"waited_s", waited_s_}};
}

}  // namespace pipette::run
