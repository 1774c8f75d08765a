#include "pipette/worker/pipe_transport.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

namespace pipette::worker {
namespace {

using protocol::Deadline;
using protocol::IoError;
using std::chrono::milliseconds;

constexpr size_t kStderrKeep = 4096;

std::string SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", sig);
}

IoError Io(IoError::Kind kind, std::string message = "") {
  IoError e;
  e.kind = kind;
  e.message = std::move(message);
  return e;
}

milliseconds Left(Deadline deadline) {
  return std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
}

}  // namespace

Result<std::unique_ptr<PipeTransport>> PipeTransport::Start(const std::vector<std::string>& argv) {
  if (argv.empty()) return Error{"no worker program given"};
  int in[2], out[2], err[2];
  // The worker's stdin is a socket so that writing to a dead worker fails with EPIPE instead of
  // raising SIGPIPE in the controller (send with MSG_NOSIGNAL), whatever the signal settings.
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0 ||
      ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    return Error{fmt::format("cannot create pipes for the worker: {}", std::strerror(errno))};
  }
  // An exec failure is reported through this pipe (closed on a successful exec).
  int exec_err[2];
  if (::pipe2(exec_err, O_CLOEXEC) != 0) {
    return Error{fmt::format("cannot create pipes for the worker: {}", std::strerror(errno))};
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return Error{fmt::format("cannot start the worker: {}", std::strerror(errno))};
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the controller
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    ::execv(args[0], args.data());
    const int e = errno;
    [[maybe_unused]] ssize_t w = ::write(exec_err[1], &e, sizeof e);
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  ::close(exec_err[1]);
  int e = 0;
  const ssize_t n = ::read(exec_err[0], &e, sizeof e);
  ::close(exec_err[0]);
  if (n == sizeof e) {
    ::waitpid(pid, nullptr, 0);
    ::close(in[1]);
    ::close(out[0]);
    ::close(err[0]);
    return Error{fmt::format("cannot run worker {}: {}", argv[0], std::strerror(e))};
  }
  return std::unique_ptr<PipeTransport>(new PipeTransport(pid, in[1], out[0], err[0]));
}

PipeTransport::~PipeTransport() {
  if (alive_) Kill();
  Reap(true);
  CloseFd(in_fd_);
  CloseFd(out_fd_);
  CloseFd(err_fd_);
}

Result<void, IoError> PipeTransport::Write(std::string_view s, Deadline deadline) {
  size_t off = 0;
  while (off < s.size()) {
    if (in_fd_ < 0) return Io(IoError::Kind::kEnded, "the worker's input is closed");
    const ssize_t n = ::send(in_fd_, s.data() + off, s.size() - off, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n >= 0) {
      off += static_cast<size_t>(n);
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      return Io(IoError::Kind::kEnded, std::strerror(errno));
    }
    const milliseconds left = Left(deadline);
    if (left.count() <= 0) return Io(IoError::Kind::kTimedOut);
    // While waiting, the worker's stdout and stderr are drained so it cannot block on them.
    pollfd fds[3] = {{in_fd_, POLLOUT, 0}, {out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    if (::poll(fds, 3, static_cast<int>(std::min<int64_t>(left.count(), 100))) < 0 &&
        errno != EINTR) {
      return Io(IoError::Kind::kFailed, std::strerror(errno));
    }
    if (fds[2].revents & (POLLIN | POLLHUP)) ReadStderr();
    if (fds[1].revents & POLLIN) {
      char buf[65536];
      const ssize_t got = ::read(out_fd_, buf, sizeof buf);
      if (got > 0) pending_.append(buf, static_cast<size_t>(got));
    }
  }
  return {};
}

Result<size_t, IoError> PipeTransport::Read(char* buffer, size_t capacity, Deadline deadline) {
  if (!pending_.empty()) {
    const size_t n = std::min(capacity, pending_.size());
    std::memcpy(buffer, pending_.data(), n);
    pending_.erase(0, n);
    return n;
  }
  while (true) {
    const milliseconds left = Left(deadline);
    if (left.count() <= 0) return Io(IoError::Kind::kTimedOut);
    pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    const int nfds = err_fd_ >= 0 ? 2 : 1;
    if (::poll(fds, nfds, static_cast<int>(std::max<int64_t>(1, left.count()))) < 0) {
      if (errno == EINTR) continue;
      return Io(IoError::Kind::kFailed, std::strerror(errno));
    }
    if (nfds == 2 && (fds[1].revents & (POLLIN | POLLHUP))) ReadStderr();
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = ::read(out_fd_, buffer, capacity);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Io(IoError::Kind::kEnded);
      return static_cast<size_t>(n);
    }
  }
}

void PipeTransport::CloseInput() { CloseFd(in_fd_); }

Result<std::string, IoError> PipeTransport::AwaitExit(Deadline deadline) {
  while (alive_) {
    Reap(false);
    if (!alive_) break;
    if (Left(deadline).count() <= 0) return Io(IoError::Kind::kTimedOut);
    if (!PumpOnce(milliseconds(50))) std::this_thread::sleep_for(milliseconds(10));
    pending_.clear();  // nobody reads a response now
  }
  return ExitDescription();
}

void PipeTransport::Kill() {
  if (pid_ > 0 && alive_) ::kill(pid_, SIGKILL);
  Reap(true);
}

std::string PipeTransport::ExitDescription() {
  Reap(true);
  if (!reaped_) return "still running";
  if (WIFSIGNALED(status_)) return fmt::format("killed by {}", SignalName(WTERMSIG(status_)));
  if (WIFEXITED(status_)) return fmt::format("exited with status {}", WEXITSTATUS(status_));
  return "ended";
}

void PipeTransport::Reap(bool block) {
  if (pid_ <= 0 || reaped_) return;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
  if (r == pid_) {
    reaped_ = true;
    alive_ = false;
    status_ = status;
    DrainStderr();
  }
}

bool PipeTransport::PumpOnce(milliseconds wait) {
  if (out_fd_ < 0) return false;
  pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
  const int nfds = err_fd_ >= 0 ? 2 : 1;
  const int rc = ::poll(fds, nfds, static_cast<int>(std::max<int64_t>(1, wait.count())));
  if (rc < 0) return errno == EINTR;
  if (nfds == 2 && (fds[1].revents & (POLLIN | POLLHUP))) ReadStderr();
  if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
    char buf[65536];
    const ssize_t n = ::read(out_fd_, buf, sizeof buf);
    if (n <= 0) return n < 0 && errno == EINTR;
    pending_.append(buf, static_cast<size_t>(n));
  }
  return true;
}

void PipeTransport::ReadStderr() {
  if (err_fd_ < 0) return;
  char buf[16384];
  const ssize_t n = ::read(err_fd_, buf, sizeof buf);
  if (n <= 0) {
    if (n == 0) CloseFd(err_fd_);
    return;
  }
  err_buf_.append(buf, static_cast<size_t>(n));
  if (err_buf_.size() > kStderrKeep) err_buf_.erase(0, err_buf_.size() - kStderrKeep);
}

void PipeTransport::DrainStderr() {
  while (err_fd_ >= 0) {
    pollfd p{err_fd_, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0) break;
    ReadStderr();
  }
}

void PipeTransport::CloseFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace pipette::worker
