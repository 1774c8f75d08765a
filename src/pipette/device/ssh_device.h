// A board reached over ssh (a RemoteShellDevice, remote_device.h): commands run as
// `ssh -T -o BatchMode=yes ... host -- '<command>'` and files go through ssh's standard input.
// Over ssh the worker's parent is the session's sshd process, gone with the connection: a killed
// controller takes its ssh client with it (PR_SET_PDEATHSIG), and a dropped link ends the client
// within ssh's keep-alives and the board's session at its sshd's ClientAliveInterval or TCP
// timeout.
#pragma once

#include <string>
#include <vector>

#include "pipette/device/remote_device.h"

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
  // The command prefix workers run under on the board ({"qemu-aarch64"}: an x86-64 host running
  // an aarch64 worker); {} : none. Results on such a board are labelled emulated.
  std::vector<std::string> emulator = {};
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

class SshDevice : public RemoteShellDevice {
 public:
  SshDevice(SshTarget target, CommandRunner& runner)
      : RemoteShellDevice(target.workdir, target.arch, runner, target.emulator),
        target_(std::move(target)) {}
  std::string Name() const override { return target_.DisplayName(); }

 protected:
  std::vector<std::string> ShellArgv(const std::string& command) const override {
    return SshArgv(target_, command);
  }
  Result<void> Push(const std::string& path, const std::string& remote) override;
  std::string LinkFailure(const CommandResult& r) const override;

 private:
  SshTarget target_;
};

}  // namespace pipette::device
