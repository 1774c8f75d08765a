// A board reached over ssh as a Device: the worker program and the files it loads are copied to
// a work folder on the board (by SHA-256: a file already there with the same digest is not sent
// again), the worker runs there as `ssh ... exec <worker>`, and the protocol is spoken over the
// ssh process's standard streams (a PipeTransport around ssh), frames included. The board's
// fingerprint and conditions are read from a snapshot of its /proc and /sys files
// (env/machine_files.h); every word of every remote command is shell-quoted
// (util/shell_quote.h).
//
// Nothing is left running on the board: the worker is told to die with its parent
// (PIPETTE_EXIT_WITH_PARENT, workers/common/serve.cc), which over ssh is the session's sshd
// process — gone when the connection is, whether the controller was killed (its ssh client dies
// with it: PR_SET_PDEATHSIG) or the link dropped (ssh's keep-alives end the client; the board's
// sshd ends the session at its own ClientAliveInterval or TCP timeout).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipette/device/device.h"
#include "pipette/util/command.h"

namespace pipette::device {

struct SshTarget {
  std::string name;  // how results name the device; default user@host:port
  std::string host;  // a name or an address
  int port = 22;
  std::string user;      // "" : ssh's default (the local user, or ~/.ssh/config's)
  std::string key_file;  // "" : ssh's default identities
  // Where staged files go on the board: absolute, or relative to the remote user's home.
  std::string workdir = ".cache/pipette";
  std::string arch;  // "" : probed (`uname -m` on the board)
  // More `-o` options for ssh (e.g. "UserKnownHostsFile=/path"), after Pipette's own.
  std::vector<std::string> ssh_options = {};
  std::string ssh_program = "/usr/bin/ssh";
  // Seconds between ssh keep-alives, and how many may go unanswered before the link counts as
  // dropped (ssh then exits, and the cell fails with that reason).
  int alive_interval_s = 5;
  int alive_count_max = 3;

  std::string DisplayName() const;
};

// The ssh command that runs `remote_command` (one string, which the board's shell splits: quote
// its words with ShellQuote) on `target`: batch mode (never a password prompt), no tty (binary
// frames pass untouched), keep-alives.
std::vector<std::string> SshArgv(const SshTarget& target, const std::string& remote_command);

// The board-side command that starts a staged worker: it dies with its sshd session and gets
// `args` as given.
std::string RemoteWorkerCommand(const std::string& worker, const std::vector<std::string>& args);

// Where a file of `sha256` named `name` is staged under `workdir`: files/<sha256>/<name>.
std::string StagedPath(const std::string& workdir, const std::string& sha256,
                       const std::string& name);

class SshDevice : public Device {
 public:
  // `runner` runs ssh's one-shot commands (staging, probes); it must outlive the device. A
  // worker's ssh is a child process of the controller (worker::PipeTransport).
  SshDevice(SshTarget target, CommandRunner& runner)
      : target_(std::move(target)), runner_(runner) {}

  std::string Name() const override { return target_.DisplayName(); }
  // argv[0], a worker program on this machine, is staged, then started on the board.
  Result<std::unique_ptr<worker::WorkerChannel>> StartWorker(
      const std::vector<std::string>& argv) override;
  // Copies `path` to the board unless a file with its SHA-256 is there already; the remote
  // path. Staged once per device object.
  Result<std::string> Stage(const std::string& path) override;
  nlohmann::json Fingerprint(const env::FingerprintOptions& options) override;
  nlohmann::json Conditions() override;
  std::optional<ProcessMemory> WorkerMemory(int pid) const override;

  // The board's architecture: the target's, else `uname -m` there (asked once).
  Result<std::string> Arch();
  // How many files Stage() sent, and how many it found there already (for tests and the log).
  int sent() const { return sent_; }
  int reused() const { return reused_; }

 private:
  // Runs `script` with the board's sh; standard input from `stdin_path` ("" : none).
  Result<CommandResult> Remote(const std::string& script, const std::string& stdin_path = "",
                               double timeout_s = 120) const;
  Result<std::string> Snapshot() const;

  SshTarget target_;
  CommandRunner& runner_;
  std::map<std::string, std::string> staged_;  // local path -> remote path
  std::optional<std::string> arch_;
  int sent_ = 0;
  int reused_ = 0;
};

}  // namespace pipette::device
