#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <optional>
#include <thread>

#include "pipette/worker/channel.h"
#include "pipette/worker/frames.h"

namespace pipette::worker {
namespace {

constexpr size_t kStderrKeep = 4096;

// Frame values are read straight into floats: little-endian, like the frames (frames.h).
static_assert(std::endian::native == std::endian::little,
              "a big-endian controller would have to swap the float32 values of frames");

std::string SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", sig);
}

class ProcessChannel : public WorkerChannel {
 public:
  ProcessChannel(pid_t pid, int in_fd, int out_fd, int err_fd)
      : pid_(pid), in_fd_(in_fd), out_fd_(out_fd), err_fd_(err_fd) {}
  ~ProcessChannel() override { Shutdown(std::chrono::milliseconds(2000)); }

  CallResult Call(nlohmann::json request, std::chrono::milliseconds timeout) override {
    CallResult r;
    if (!alive_) return Broken(r, "the worker is not running");
    const int64_t id = ++next_id_;
    request["id"] = id;
    const std::string op = request.value("op", std::string("?"));
    std::string line = request.dump() + "\n";
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    switch (WriteAll(line, deadline)) {
      case WriteResult::kOk:
        break;
      case WriteResult::kTimedOut:
        Kill();
        return Broken(r, fmt::format("the worker did not read '{}' within {:g}s: it was killed", op,
                                     timeout.count() / 1000.0));
      case WriteResult::kFailed:
        return Broken(r, fmt::format("could not send '{}' to the worker ({}): {}", op,
                                     std::strerror(errno), ExitDescription()));
    }
    std::string response_line;
    while (true) {
      const size_t nl = out_buf_.find('\n');
      if (nl != std::string::npos) {
        response_line = out_buf_.substr(0, nl);
        out_buf_.erase(0, nl + 1);
        break;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        Kill();
        return Broken(r, fmt::format("no response to '{}' within {:g}s: the worker was killed", op,
                                     timeout.count() / 1000.0));
      }
      if (!PumpOnce(left)) {
        return Broken(r, fmt::format("the worker died during '{}': {}", op, ExitDescription()));
      }
    }
    nlohmann::json resp = nlohmann::json::parse(response_line, nullptr, false);
    if (resp.is_discarded() || !resp.is_object()) {
      Kill();
      return Broken(r, fmt::format("the worker printed something that is not a protocol message "
                                   "during '{}': '{}'",
                                   op, response_line.substr(0, 200)));
    }
    if (!resp.contains("id") || resp["id"] != id) {
      Kill();
      return Broken(r, fmt::format("the worker answered '{}' with id {} (expected {})", op,
                                   resp.contains("id") ? resp["id"].dump() : "none", id));
    }
    if (!resp.value("ok", false)) {
      r.failure = CallFailure::kRequestFailed;
      r.error = fmt::format("'{}' failed in the worker: {}", op,
                            resp.value("error", std::string("(no message)")));
      r.response = std::move(resp);
      return r;
    }
    r.response = std::move(resp);
    return r;
  }

  CallResult ReadFrame(LogitsFrame* frame, size_t n_values,
                       std::chrono::milliseconds timeout) override {
    CallResult r;
    if (!alive_) return Broken(r, "the worker is not running");
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    unsigned char h[kFrameHeaderBytes];
    if (auto why = Take(reinterpret_cast<char*>(h), sizeof h, deadline)) return Broken(r, *why);
    const FrameHeader fh = ParseFrameHeader(h);
    if (fh.kind == FrameKind::kAbort) {
      // An abort frame carries a short message; a longer one is a corrupt stream.
      if (fh.count > 64 * 1024) {
        return Broken(r, fmt::format("an abort frame announces {} bytes of message", fh.count));
      }
      std::string message(fh.count, '\0');
      if (auto why = Take(message.data(), message.size(), deadline)) return Broken(r, *why);
      r.failure = CallFailure::kRequestFailed;
      r.error = "the worker ended its frames: " + message;
      return r;
    }
    if (fh.kind != FrameKind::kLogits) {
      return Broken(r, "the worker sent bytes that are not a frame where one was expected");
    }
    if (fh.count != n_values) {
      return Broken(r, fmt::format("the worker sent a frame of {} values where {} were announced",
                                   fh.count, n_values));
    }
    frame->position = fh.position;
    frame->t_ns = fh.t_ns;
    frame->logits.resize(n_values);
    if (auto why = Take(reinterpret_cast<char*>(frame->logits.data()), n_values * sizeof(float),
                        deadline)) {
      return Broken(r, *why);
    }
    return r;
  }

  std::string StderrTail() const override { return err_buf_; }
  int Pid() const override { return pid_; }
  bool Alive() const override { return alive_; }

  void Shutdown(std::chrono::milliseconds grace) override {
    if (pid_ <= 0) return;
    if (alive_) {
      const std::string bye = nlohmann::json{{"id", ++next_id_}, {"op", "shutdown"}}.dump() + "\n";
      WriteAll(bye, std::chrono::steady_clock::now() + grace);
      CloseFd(in_fd_);
      const auto deadline = std::chrono::steady_clock::now() + grace;
      while (std::chrono::steady_clock::now() < deadline) {
        Reap(false);
        if (!alive_) break;
        if (!PumpOnce(std::chrono::milliseconds(50))) {
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
      }
      if (alive_) Kill();
    }
    Reap(true);
    CloseFd(in_fd_);
    CloseFd(out_fd_);
    CloseFd(err_fd_);
    pid_ = -1;
  }

 private:
  CallResult& Broken(CallResult& r, std::string why) {
    r.failure = CallFailure::kWorkerBroken;
    r.error = std::move(why);
    if (alive_) Kill();
    return r;
  }

  void Kill() {
    if (pid_ > 0 && alive_) ::kill(pid_, SIGKILL);
    Reap(true);
  }

  // Collects the exit status; blocking only when asked (after SIGKILL it is immediate).
  void Reap(bool block) {
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

  std::string ExitDescription() {
    Reap(true);
    if (!reaped_) return "still running";
    if (WIFSIGNALED(status_)) return fmt::format("killed by {}", SignalName(WTERMSIG(status_)));
    if (WIFEXITED(status_)) return fmt::format("exited with status {}", WEXITSTATUS(status_));
    return "ended";
  }

  enum class WriteResult { kOk, kTimedOut, kFailed };

  // Sends without blocking past `deadline`: a worker that stops reading cannot hang the
  // controller. While waiting, its stdout and stderr are drained so it cannot block on them.
  WriteResult WriteAll(const std::string& s, std::chrono::steady_clock::time_point deadline) {
    size_t off = 0;
    while (off < s.size()) {
      const ssize_t n = ::send(in_fd_, s.data() + off, s.size() - off, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n >= 0) {
        off += static_cast<size_t>(n);
        continue;
      }
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) return WriteResult::kFailed;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return WriteResult::kTimedOut;
      pollfd fds[3] = {{in_fd_, POLLOUT, 0}, {out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
      if (::poll(fds, 3, static_cast<int>(std::min<int64_t>(left.count(), 100))) < 0 &&
          errno != EINTR) {
        return WriteResult::kFailed;
      }
      if (fds[2].revents & (POLLIN | POLLHUP)) ReadStderr();
      if (fds[1].revents & POLLIN) {
        char buf[65536];
        const ssize_t got = ::read(out_fd_, buf, sizeof buf);
        if (got > 0) out_buf_.append(buf, static_cast<size_t>(got));
      }
    }
    return WriteResult::kOk;
  }

  // Waits for output on stdout or stderr; false when stdout reached end of file.
  bool PumpOnce(std::chrono::milliseconds wait) {
    pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    const int nfds = err_fd_ >= 0 ? 2 : 1;
    const int rc = ::poll(fds, nfds, static_cast<int>(std::max<int64_t>(1, wait.count())));
    if (rc < 0) return errno == EINTR;
    if (nfds == 2 && (fds[1].revents & (POLLIN | POLLHUP))) ReadStderr();
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      char buf[65536];
      const ssize_t n = ::read(out_fd_, buf, sizeof buf);
      if (n <= 0) {
        if (n < 0 && errno == EINTR) return true;
        return false;
      }
      out_buf_.append(buf, static_cast<size_t>(n));
    }
    return true;
  }

  // Fills `dst` with the next `n` bytes of standard output (those already read first, then
  // straight from the pipe); the reason when the worker died or the deadline passed.
  std::optional<std::string> Take(char* dst, size_t n,
                                  std::chrono::steady_clock::time_point deadline) {
    const size_t buffered = std::min(n, out_buf_.size());
    std::memcpy(dst, out_buf_.data(), buffered);
    out_buf_.erase(0, buffered);
    size_t got = buffered;
    while (got < n) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        Kill();
        return "the worker's frames did not arrive in time: it was killed";
      }
      pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
      const int nfds = err_fd_ >= 0 ? 2 : 1;
      if (::poll(fds, nfds, static_cast<int>(std::max<int64_t>(1, left.count()))) < 0) {
        if (errno == EINTR) continue;
        return fmt::format("cannot wait for the worker's frames: {}", std::strerror(errno));
      }
      if (nfds == 2 && (fds[1].revents & (POLLIN | POLLHUP))) ReadStderr();
      if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
        const ssize_t k = ::read(out_fd_, dst + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return fmt::format("the worker died during its frames: {}", ExitDescription());
        got += static_cast<size_t>(k);
      }
    }
    return std::nullopt;
  }

  void ReadStderr() {
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

  void DrainStderr() {
    while (err_fd_ >= 0) {
      pollfd p{err_fd_, POLLIN, 0};
      if (::poll(&p, 1, 0) <= 0) break;
      ReadStderr();
    }
  }

  static void CloseFd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }

  pid_t pid_;
  int in_fd_, out_fd_, err_fd_;
  std::string out_buf_, err_buf_;
  int64_t next_id_ = 0;
  bool alive_ = true;
  bool reaped_ = false;
  int status_ = 0;
};

}  // namespace

Result<std::unique_ptr<WorkerChannel>> ProcessLauncher::Launch(
    const std::vector<std::string>& argv) {
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
  return std::unique_ptr<WorkerChannel>(new ProcessChannel(pid, in[1], out[0], err[0]));
}

}  // namespace pipette::worker
