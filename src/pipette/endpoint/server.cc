#include "pipette/endpoint/server.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <thread>

namespace pipette::endpoint {

Result<int> FreeLocalPort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return RuntimeError(fmt::format("no socket for a free port: {}", std::strerror(errno)));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  const int err = errno;
  close(fd);
  if (!ok) return RuntimeError(fmt::format("no free port on 127.0.0.1: {}", std::strerror(err)));
  return static_cast<int>(ntohs(addr.sin_port));
}

Result<std::unique_ptr<ServerProcess>> ServerProcess::Start(std::vector<std::string> argv,
                                                            const std::filesystem::path& log,
                                                            http::HttpClient& client,
                                                            std::chrono::milliseconds ready_within,
                                                            const std::atomic<bool>* cancel) {
  if (argv.empty()) return RuntimeError("no server program to start");
  auto port = FreeLocalPort();
  if (!port) return port.error();
  for (std::string& a : argv) {
    for (size_t at; (at = a.find("{port}")) != std::string::npos;) {
      a.replace(at, 6, std::to_string(*port));
    }
  }
  std::vector<char*> argv_p;
  for (std::string& a : argv) argv_p.push_back(a.data());
  argv_p.push_back(nullptr);
  const std::string log_path = log.string();
  int pipe_fds[2];  // closed on exec: a byte back means exec failed, with its errno
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return RuntimeError(
        fmt::format("cannot start the server {}: {}", argv[0], std::strerror(errno)));
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // The server never outlives the controller, even one killed outright.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(127);
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0) ::_exit(127);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
    ::execvp(argv_p[0], argv_p.data());
    const int err = errno;
    (void)!::write(pipe_fds[1], &err, sizeof err);
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  int exec_errno = 0;
  const bool exec_failed = pid > 0 && ::read(pipe_fds[0], &exec_errno, sizeof exec_errno) > 0;
  ::close(pipe_fds[0]);
  if (pid < 0 || exec_failed) {
    if (pid > 0) ::waitpid(pid, nullptr, 0);
    return RuntimeError(fmt::format("cannot start the server {}: {}", argv[0],
                                    std::strerror(pid < 0 ? errno : exec_errno)));
  }
  std::unique_ptr<ServerProcess> server(
      new ServerProcess(pid, http::Url{"http", "127.0.0.1", *port, ""}, log));
  const auto deadline = std::chrono::steady_clock::now() + ready_within;
  while (true) {
    if (!server->Alive()) {
      return RuntimeError(
          fmt::format("the server {} exited before it was ready; its log ({}) "
                      "ends:\n{}",
                      argv[0], log.string(), server->LogTail()));
    }
    auto r = client.Send(
        server->url(),
        http::Request{.method = "GET", .path = "/health", .timeout = std::chrono::seconds(2)});
    if (r && r->status == 200) return server;
    if (cancel && cancel->load()) {
      server->Stop();
      return RuntimeError(fmt::format("interrupted while the server {} was starting", argv[0]));
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      const std::string tail = server->LogTail();
      server->Stop();
      return RuntimeError(
          fmt::format("the server {} was not ready within {} ms (GET /health); "
                      "its log ({}) ends:\n{}",
                      argv[0], ready_within.count(), log.string(), tail));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

ServerProcess::~ServerProcess() { Stop(); }

bool ServerProcess::Alive() {
  if (reaped_) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) reaped_ = true;
  return !reaped_;
}

void ServerProcess::Stop() {
  if (!Alive()) return;
  kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (Alive() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (Alive()) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    reaped_ = true;
  }
}

std::string ServerProcess::LogTail(int lines) const {
  std::ifstream in(log_);
  std::deque<std::string> last;
  for (std::string line; std::getline(in, line);) {
    last.push_back(line);
    if (static_cast<int>(last.size()) > lines) last.pop_front();
  }
  std::string out;
  for (const auto& l : last) out += "  " + l + "\n";
  return out;
}

}  // namespace pipette::endpoint
