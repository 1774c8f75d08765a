#include "pipette/device/remote_device.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>

#include "pipette/device/local_device.h"
#include "pipette/env/bandwidth.h"
#include "pipette/env/fingerprint.h"
#include "pipette/env/machine_files.h"
#include "pipette/util/sha256.h"
#include "pipette/util/shell_quote.h"
#include "pipette/worker/line_channel.h"
#include "pipette/worker/pipe_transport.h"

namespace pipette::device {
namespace fs = std::filesystem;

std::string RemoteWorkerCommand(const std::string& worker, const std::vector<std::string>& args,
                                const std::vector<std::string>& emulator,
                                const std::string& prelude) {
  // A relative path starts "./": never read as an option, never looked up on PATH.
  const std::string program = worker.starts_with("/") ? worker : "./" + worker;
  std::vector<std::string> words = emulator;
  words.push_back(program);
  words.insert(words.end(), args.begin(), args.end());
  // `exec`: the worker replaces the shell, so its parent is the shell's ($PPID: the session's
  // sshd; adbd), which it is told to die with.
  return fmt::format("{}export PIPETTE_EXIT_WITH_PARENT=\"$PPID\"; chmod u+x {} && exec {}",
                     prelude.empty() ? "" : prelude + "\n", ShellQuote(program), ShellJoin(words));
}

std::string StagedPath(const std::string& workdir, const std::string& sha256,
                       const std::string& name) {
  return fmt::format("{}/files/{}/{}", workdir, sha256, name);
}

Result<CommandResult> RemoteShellDevice::Remote(const std::string& script,
                                                const std::string& stdin_path,
                                                double timeout_s) const {
  Command c;
  c.argv = ShellArgv("sh -c " + ShellQuote(script));
  c.timeout_s = timeout_s;
  c.stdin_path = stdin_path;
  auto r = runner_.Run(c);
  if (!r) return r.error();
  if (r->timed_out) {
    return RuntimeError(fmt::format("device {}: no answer within {} s", Name(), timeout_s));
  }
  if (std::string why = LinkFailure(*r); !why.empty()) {
    return RuntimeError(fmt::format("device {}: {}", Name(), why));
  }
  return r;
}

Result<std::string> RemoteShellDevice::Arch() {
  if (!arch_.empty()) return arch_;
  auto r = Remote("uname -m");
  if (!r) return r.error();
  const std::string arch = r->out.substr(0, r->out.find_first_of("\r\n"));
  if (r->exit_code != 0 || arch.empty()) {
    return RuntimeError(fmt::format("device {}: `uname -m` failed: {}", Name(), r->err));
  }
  arch_ = arch;
  return arch;
}

Result<void> RemoteShellDevice::CheckLink() {
  auto r = Remote("true", "", 20);
  if (!r) return r.error();
  if (r->exit_code != 0) {
    return RuntimeError(
        fmt::format("device {}: `true` exited {}: {}", Name(), r->exit_code, r->err));
  }
  return {};
}

Result<std::string> RemoteShellDevice::Stage(const std::string& path) {
  if (auto it = staged_.find(path); it != staged_.end()) return it->second;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    return RuntimeError(fmt::format("{}: no such file to stage on device {}", path, Name()));
  }
  auto sha = Sha256File(path);
  if (!sha) return sha.error();
  const std::string dest = StagedPath(workdir_, *sha, fs::path(path).filename().string());
  const std::string qdest = ShellQuote(dest);
  // Hashing a file takes time on a slow board: two minutes, and a second for each 20 MB.
  const double hash_s = 120 + static_cast<double>(fs::file_size(path, ec)) / 20e6;
  // There already with the same digest (read through stdin: sha256sum escapes odd names)?
  auto there = Remote(fmt::format("command -v sha256sum >/dev/null || {{ echo 'the device has "
                                  "no sha256sum to check staged files with' >&2; exit 4; }}; "
                                  "if [ -f {0} ]; then sha256sum < {0}; fi",
                                  qdest),
                      "", hash_s);
  if (!there) return there.error();
  if (there->exit_code != 0) {
    return RuntimeError(fmt::format("device {}: {}", Name(), there->err));
  }
  if (there->out.substr(0, sha->size()) == *sha) {
    ++reused_;
    staged_[path] = dest;
    return dest;
  }
  // Copied to a part file of this attempt's own (two controllers staging one file never write
  // into each other's), its digest checked on the device, then moved into place.
  const std::string part = fmt::format("{}.part-{}-{}", dest, ::getpid(), ++attempts_);
  auto made = Remote("mkdir -p " + ShellQuote(fs::path(dest).parent_path().string()));
  if (!made) return made.error();
  if (made->exit_code != 0) {
    return RuntimeError(
        fmt::format("device {}: cannot make the folder for {}: {}", Name(), dest, made->err));
  }
  if (auto pushed = Push(path, part); !pushed) return pushed.error();
  const std::string script = fmt::format(
      "set -- $(sha256sum < {part}) && if [ \"$1\" = {sha} ]; then mv -f {part} {dest}; "
      "else rm -f {part}; echo \"the copy's SHA-256 is $1\" >&2; exit 3; fi",
      fmt::arg("part", ShellQuote(part)), fmt::arg("sha", *sha), fmt::arg("dest", qdest));
  auto checked = Remote(script, "", hash_s);
  if (!checked) return checked.error();
  if (checked->exit_code != 0) {
    return RuntimeError(
        fmt::format("device {}: staging {} failed: {}", Name(), path, checked->err));
  }
  ++sent_;
  staged_[path] = dest;
  return dest;
}

Result<std::unique_ptr<worker::WorkerChannel>> RemoteShellDevice::StartWorkerAfter(
    const std::string& prelude, const std::vector<std::string>& argv) {
  if (argv.empty()) return RuntimeError("no worker program to start");
  auto worker = Stage(argv[0]);
  if (!worker) return worker.error();
  const std::vector<std::string> args(argv.begin() + 1, argv.end());
  // The local program by its path (PipeTransport does not search PATH); the device's sh runs the
  // command whatever the login shell is.
  std::vector<std::string> shell =
      ShellArgv("sh -c " + ShellQuote(RemoteWorkerCommand(*worker, args, emulator_, prelude)));
  if (shell[0].find('/') == std::string::npos) {
    auto found = FindOnPath(shell[0]);
    if (!found) return found.error();
    shell[0] = *found;
  }
  auto transport = worker::PipeTransport::Start(shell);
  if (!transport) return transport.error();
  return std::unique_ptr<worker::WorkerChannel>(new worker::LineChannel(
      std::move(*transport), fmt::format("{} on device {}", argv[0], Name())));
}

Result<std::string> RemoteShellDevice::Output(const std::string& script, double timeout_s) const {
  auto r = Remote(script, "", timeout_s);
  if (!r) return r.error();
  if (r->exit_code != 0) {
    return RuntimeError(fmt::format("device {}: the script exited with {}: {}", Name(),
                                    r->exit_code, r->err.substr(0, 300)));
  }
  return r->out;
}

Result<std::string> RemoteShellDevice::Snapshot() const {
  auto r = Remote(env::SnapshotScript());
  if (!r) return r.error();
  return r->out;
}

nlohmann::json RemoteShellDevice::Bandwidth(const env::FingerprintOptions& options,
                                            const nlohmann::json& facts,
                                            int64_t mem_available_bytes) {
  const std::string& probe = options.bandwidth_probe;
  if (probe.empty()) {
    return {{"na", options.bandwidth_probe_missing.empty()
                       ? std::string("no memory bandwidth probe (pipette-probe) was given to run")
                       : options.bandwidth_probe_missing}};
  }
  auto staged = Stage(probe);
  if (!staged)
    return {{"na", "the memory bandwidth probe was not staged: " + staged.error().message}};
  const std::string command =
      RemoteWorkerCommand(*staged, env::BandwidthProbeArgs(facts, mem_available_bytes), emulator_);
  return env::BandwidthFact(Remote(command, "", env::kBandwidthProbeTimeoutS),
                            fmt::format("{} on device {}", *staged, Name()));
}

nlohmann::json RemoteShellDevice::Fingerprint(const env::FingerprintOptions& options) {
  auto snap = Snapshot();
  // Unreadable: every fact null, nothing guessed.
  const env::SnapshotFiles files(snap ? env::ParseSnapshot(*snap)
                                      : std::map<std::string, std::string>{});
  nlohmann::json facts = env::FingerprintFromFiles(files, env::HostFactsFrom(files));
  if (!emulator_.empty()) {
    // The facts above are the emulating host's; the worker's instruction set is another.
    facts["emulated"] = {{"arch", arch_},
                         {"emulator", ShellJoin(emulator_)},
                         {"host_arch", facts.value("arch", nlohmann::json())}};
  }
  if (options.measure_bandwidth) {
    // Under an emulator, the emulator's memory traffic: labelled as the cell's figures are.
    facts["memory_bandwidth"] =
        snap ? Bandwidth(options, facts, env::ConditionsFromFiles(files).mem_available_bytes)
             : nlohmann::json{
                   {"na", "the device's facts could not be read: " + snap.error().message}};
  }
  return facts;
}

nlohmann::json RemoteShellDevice::Conditions() {
  auto snap = Snapshot();
  if (!snap) return env::ToJson(env::Conditions{});
  return env::ToJson(env::ConditionsFromFiles(env::SnapshotFiles(env::ParseSnapshot(*snap))));
}

std::optional<ProcessMemory> RemoteShellDevice::WorkerMemory(int pid) const {
  if (pid <= 0) return std::nullopt;
  auto r = Remote(fmt::format("cat /proc/{}/status", pid));
  if (!r || r->exit_code != 0) return std::nullopt;
  return ParseProcStatusMemory(r->out);
}

}  // namespace pipette::device
