// The local transport: a worker process started with fork/exec, its standard input a socket
// (writing to a dead worker fails instead of raising SIGPIPE) and its standard output and error
// pipes (Linux/POSIX). Standard error is drained whenever the transport waits, and its last
// 4 KiB kept.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "pipette/protocol/transport.h"
#include "pipette/util/result.h"

namespace pipette::worker {

class PipeTransport : public protocol::Transport {
 public:
  // Starts `argv` (argv[0] a path: no PATH search). Fails when it cannot be run.
  static Result<std::unique_ptr<PipeTransport>> Start(const std::vector<std::string>& argv);
  ~PipeTransport() override;
  PipeTransport(const PipeTransport&) = delete;
  PipeTransport& operator=(const PipeTransport&) = delete;

  Result<void, protocol::IoError> Write(std::string_view bytes,
                                        protocol::Deadline deadline) override;
  Result<size_t, protocol::IoError> Read(char* buffer, size_t capacity,
                                         protocol::Deadline deadline) override;
  void CloseInput() override;
  Result<std::string, protocol::IoError> AwaitExit(protocol::Deadline deadline) override;
  void Kill() override;
  std::string ExitDescription() override;
  bool Alive() const override { return alive_; }
  int Pid() const override { return pid_; }
  std::string StderrTail() const override { return err_buf_; }

 private:
  PipeTransport(pid_t pid, int in_fd, int out_fd, int err_fd)
      : pid_(pid), in_fd_(in_fd), out_fd_(out_fd), err_fd_(err_fd) {}
  // Collects the exit status; blocking only when asked (after SIGKILL it is immediate).
  void Reap(bool block);
  // Waits up to `wait` for output; stdout's goes to pending_. False when stdout ended.
  bool PumpOnce(std::chrono::milliseconds wait);
  void ReadStderr();
  void DrainStderr();
  static void CloseFd(int& fd);

  pid_t pid_;
  int in_fd_, out_fd_, err_fd_;
  std::string pending_;  // standard output read while writing, not yet handed out
  std::string err_buf_;
  bool alive_ = true;
  bool reaped_ = false;
  int status_ = 0;
};

}  // namespace pipette::worker
