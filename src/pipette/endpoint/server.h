// A server Pipette starts itself (llama-server from the pinned llama.cpp build): on a free port of
// 127.0.0.1, its output to a log file (a server writes too much for a pipe nobody reads), ready
// when GET /health answers 200, stopped with SIGTERM then SIGKILL by Stop() or the destructor.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "pipette/http/client.h"
#include "pipette/util/result.h"

namespace pipette::endpoint {

// A TCP port on 127.0.0.1 nothing listens on now (the kernel's pick for port 0).
Result<int> FreeLocalPort();

class ServerProcess {
 public:
  // Starts `argv` (argv[0] a path or a name on PATH); "{port}" in any argument becomes the port.
  // Waits until GET <origin>/health is 200, the process exits, `ready_within` passes or
  // `cancel` (Ctrl-C; may be null) is set; the error then quotes the log's last lines.
  static Result<std::unique_ptr<ServerProcess>> Start(std::vector<std::string> argv,
                                                      const std::filesystem::path& log,
                                                      http::HttpClient& client,
                                                      std::chrono::milliseconds ready_within,
                                                      const std::atomic<bool>* cancel = nullptr);
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  const http::Url& url() const { return url_; }  // http://127.0.0.1:<port>
  pid_t pid() const { return pid_; }
  bool Alive();
  // SIGTERM, up to 5 s for it to exit, then SIGKILL; idempotent.
  void Stop();
  // The log's last `lines` lines.
  std::string LogTail(int lines = 20) const;

 private:
  ServerProcess(pid_t pid, http::Url url, std::filesystem::path log)
      : pid_(pid), url_(std::move(url)), log_(std::move(log)) {}
  pid_t pid_;
  http::Url url_;
  std::filesystem::path log_;
  bool reaped_ = false;
};

}  // namespace pipette::endpoint
