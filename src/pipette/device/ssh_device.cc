#include "pipette/device/ssh_device.h"

#include <fmt/format.h>

#include "pipette/util/shell_quote.h"

namespace pipette::device {

std::string SshTarget::DisplayName() const {
  if (!name.empty()) return name;
  return fmt::format("{}{}:{}", user.empty() ? "" : user + "@", host, port);
}

std::vector<std::string> SshArgv(const SshTarget& t, const std::string& remote_command) {
  std::vector<std::string> argv = {t.ssh_program,
                                   "-T",  // no tty: the protocol's bytes pass untouched
                                   "-o",
                                   "BatchMode=yes",  // never a password prompt
                                   "-o",
                                   fmt::format("ServerAliveInterval={}", t.alive_interval_s),
                                   "-o",
                                   fmt::format("ServerAliveCountMax={}", t.alive_count_max),
                                   "-o",
                                   "ConnectTimeout=15",
                                   "-p",
                                   std::to_string(t.port)};
  if (!t.key_file.empty()) {
    argv.insert(argv.end(), {"-i", t.key_file, "-o", "IdentitiesOnly=yes"});
  }
  for (const std::string& o : t.ssh_options) argv.insert(argv.end(), {"-o", o});
  // "--" before the destination: a host (or user) written as "-oProxyCommand=..." is a name
  // ssh fails to reach, never an option.
  argv.push_back("--");
  argv.push_back(t.user.empty() ? t.host : t.user + "@" + t.host);
  argv.push_back(remote_command);
  return argv;
}

Result<void> SshDevice::Push(const std::string& path, const std::string& remote) {
  // Through ssh's standard input.
  auto r = Remote("cat > " + ShellQuote(remote), path, 3600);
  if (!r) return r.error();
  if (r->exit_code != 0) {
    return RuntimeError(fmt::format("device {}: copying {} failed: {}", Name(), path, r->err));
  }
  return {};
}

std::string SshDevice::LinkFailure(const CommandResult& r) const {
  // ssh's own failure (it cannot connect, the link dropped) is its exit code 255.
  return r.exit_code == 255 ? "ssh failed: " + r.err : "";
}

}  // namespace pipette::device
