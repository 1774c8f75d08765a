#include "pipette/device/ssh_device.h"

#include <fmt/format.h>

#include <filesystem>

#include "pipette/device/local_device.h"
#include "pipette/env/machine_files.h"
#include "pipette/util/sha256.h"
#include "pipette/util/shell_quote.h"
#include "pipette/worker/line_channel.h"
#include "pipette/worker/pipe_transport.h"

namespace pipette::device {
namespace fs = std::filesystem;

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
  argv.push_back(t.user.empty() ? t.host : t.user + "@" + t.host);
  argv.push_back("--");
  argv.push_back(remote_command);
  return argv;
}

std::string RemoteWorkerCommand(const std::string& worker, const std::vector<std::string>& args) {
  std::vector<std::string> words = {"env", "PIPETTE_EXIT_WITH_PARENT=1", worker};
  words.insert(words.end(), args.begin(), args.end());
  // `exec`: the worker replaces the shell, so its parent is the session's sshd.
  return fmt::format("chmod u+x {} && exec {}", ShellQuote(worker), ShellJoin(words));
}

std::string StagedPath(const std::string& workdir, const std::string& sha256,
                       const std::string& name) {
  return fmt::format("{}/files/{}/{}", workdir, sha256, name);
}

Result<CommandResult> SshDevice::Remote(const std::string& script, const std::string& stdin_path,
                                        double timeout_s) const {
  Command c;
  c.argv = SshArgv(target_, "sh -c " + ShellQuote(script));
  c.timeout_s = timeout_s;
  c.stdin_path = stdin_path;
  auto r = runner_.Run(c);
  if (!r) return r.error();
  if (r->timed_out) {
    return RuntimeError(
        fmt::format("device {}: no answer over ssh within {} s", Name(), timeout_s));
  }
  if (r->exit_code == 255) {  // ssh's own failure: the link, not the command
    return RuntimeError(fmt::format("device {}: ssh failed: {}", Name(), r->err));
  }
  return r;
}

Result<std::string> SshDevice::Arch() {
  if (!target_.arch.empty()) return target_.arch;
  if (arch_) return *arch_;
  auto r = Remote("uname -m");
  if (!r) return r.error();
  const std::string arch = fmt::format("{}", r->out.substr(0, r->out.find_first_of("\r\n")));
  if (r->exit_code != 0 || arch.empty()) {
    return RuntimeError(fmt::format("device {}: `uname -m` failed: {}", Name(), r->err));
  }
  arch_ = arch;
  return arch;
}

Result<std::string> SshDevice::Stage(const std::string& path) {
  if (auto it = staged_.find(path); it != staged_.end()) return it->second;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    return RuntimeError(fmt::format("{}: no such file to stage on device {}", path, Name()));
  }
  auto sha = Sha256File(path);
  if (!sha) return sha.error();
  const std::string dest = StagedPath(target_.workdir, *sha, fs::path(path).filename().string());
  const std::string qdest = ShellQuote(dest);
  // There already with the same digest (read through stdin: sha256sum escapes odd names)?
  auto there = Remote(fmt::format("if [ -f {0} ]; then sha256sum < {0}; fi", qdest));
  if (!there) return there.error();
  if (there->out.substr(0, sha->size()) == *sha) {
    ++reused_;
    staged_[path] = dest;
    return dest;
  }
  // Sent through ssh's standard input into a part file, its digest checked there, then moved.
  const std::string part = ShellQuote(dest + ".part");
  const std::string script = fmt::format(
      "mkdir -p {dir} && cat > {part} && set -- $(sha256sum < {part}) && "
      "if [ \"$1\" = {sha} ]; then mv -f {part} {dest}; "
      "else rm -f {part}; echo \"the copy's SHA-256 is $1\" >&2; exit 3; fi",
      fmt::arg("dir", ShellQuote(fs::path(dest).parent_path().string())), fmt::arg("part", part),
      fmt::arg("sha", *sha), fmt::arg("dest", qdest));
  auto sent = Remote(script, path, 3600);
  if (!sent) return sent.error();
  if (sent->exit_code != 0) {
    return RuntimeError(fmt::format("device {}: staging {} failed: {}", Name(), path, sent->err));
  }
  ++sent_;
  staged_[path] = dest;
  return dest;
}

Result<std::unique_ptr<worker::WorkerChannel>> SshDevice::StartWorker(
    const std::vector<std::string>& argv) {
  if (argv.empty()) return RuntimeError("no worker program to start");
  auto worker = Stage(argv[0]);
  if (!worker) return worker.error();
  const std::vector<std::string> args(argv.begin() + 1, argv.end());
  auto transport =
      worker::PipeTransport::Start(SshArgv(target_, RemoteWorkerCommand(*worker, args)));
  if (!transport) return transport.error();
  return std::unique_ptr<worker::WorkerChannel>(new worker::LineChannel(
      std::move(*transport), fmt::format("{} on device {}", argv[0], Name())));
}

Result<std::string> SshDevice::Snapshot() const {
  auto r = Remote(env::SnapshotScript());
  if (!r) return r.error();
  return r->out;
}

nlohmann::json SshDevice::Fingerprint(const env::FingerprintOptions&) {
  auto snap = Snapshot();
  if (!snap) return nlohmann::json::object();  // unreadable: every fact null, nothing guessed
  const env::SnapshotFiles files(env::ParseSnapshot(*snap));
  return env::FingerprintFromFiles(files, env::HostFactsFrom(files));
}

nlohmann::json SshDevice::Conditions() {
  auto snap = Snapshot();
  if (!snap) return env::ToJson(env::Conditions{});
  return env::ToJson(env::ConditionsFromFiles(env::SnapshotFiles(env::ParseSnapshot(*snap))));
}

std::optional<ProcessMemory> SshDevice::WorkerMemory(int pid) const {
  if (pid <= 0) return std::nullopt;
  auto r = Remote(fmt::format("cat /proc/{}/status", pid));
  if (!r || r->exit_code != 0) return std::nullopt;
  return ParseProcStatusMemory(r->out);
}

}  // namespace pipette::device
