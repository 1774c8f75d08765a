// What every device reached through a remote shell does the same way (ssh's boards, adb's
// phones): the worker program and the files it loads are staged in a work folder on the device
// by SHA-256 (a file already there with the same digest is not sent again), the worker runs
// there through the shell with its standard streams carrying the protocol (a PipeTransport
// around the local ssh or adb process, frames included), and the device's fingerprint and
// conditions are read from a snapshot of its /proc and /sys files (env/machine_files.h). Every
// word of every remote command is shell-quoted (util/shell_quote.h). A kind of device says only
// how a command reaches the device's shell and how a file is copied there.
//
// Nothing is left running on the device: the worker is told to die with its parent
// (PIPETTE_EXIT_WITH_PARENT, workers/common/serve.cc) — over ssh the session's sshd process,
// which ends when the link does (adb differs: adb_device.h).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipette/device/device.h"
#include "pipette/util/command.h"

namespace pipette::device {

// The device-side command that starts a staged worker: it dies with its session and gets `args`
// as given. With an `emulator` (a command prefix on the device, e.g. {"qemu-aarch64"}) the worker
// runs under it: the emulator's process is the one that dies with the session.
// `prelude`: sh commands run first (a tier joining its cgroups, env/cgroup_tier.h).
std::string RemoteWorkerCommand(const std::string& worker, const std::vector<std::string>& args,
                                const std::vector<std::string>& emulator = {},
                                const std::string& prelude = "");

// Where a file of `sha256` named `name` is staged under `workdir`: files/<sha256>/<name>.
std::string StagedPath(const std::string& workdir, const std::string& sha256,
                       const std::string& name);

class RemoteShellDevice : public Device {
 public:
  // `runner` runs the one-shot commands (staging, probes); it must outlive the device.
  // `workdir`: where staged files go (absolute, or relative to where the shell starts); `arch`:
  // the device's architecture, "" to ask `uname -m` there; `emulator`: the command prefix its
  // workers run under (an x86-64 board running aarch64 workers under qemu-aarch64), {} for none.
  RemoteShellDevice(std::string workdir, std::string arch, CommandRunner& runner,
                    std::vector<std::string> emulator = {})
      : workdir_(std::move(workdir)),
        arch_(std::move(arch)),
        runner_(runner),
        emulator_(std::move(emulator)) {}

  // argv[0], a worker program on this machine, is staged, then started on the device.
  Result<std::unique_ptr<worker::WorkerChannel>> StartWorker(
      const std::vector<std::string>& argv) override {
    return StartWorkerAfter("", argv);
  }
  Result<std::unique_ptr<worker::WorkerChannel>> StartWorkerAfter(
      const std::string& prelude, const std::vector<std::string>& argv) override;
  Result<std::string> RunScript(const std::string& script, double timeout_s) override {
    return Output(script, timeout_s);
  }
  // Copies `path` to the device unless a file with its SHA-256 is there already; the remote
  // path. Staged once per device object.
  Result<std::string> Stage(const std::string& path) override;
  // The facts read from a snapshot of the device's /proc and /sys; with measure_bandwidth, the
  // probe options.bandwidth_probe (built for the device) staged and run there.
  nlohmann::json Fingerprint(const env::FingerprintOptions& options) override;
  nlohmann::json Conditions() override;
  std::optional<ProcessMemory> WorkerMemory(int pid) const override;

  // The device's architecture: as given, else `uname -m` there (asked once).
  Result<std::string> Arch() override;
  // Runs `true` on the device with a short timeout: an error says how the link failed.
  Result<void> CheckLink() override;
  const std::vector<std::string>& emulator() const { return emulator_; }
  // Runs `script` with the device's sh and returns what it printed; an error when the link
  // failed or the script exited non-zero (the readiness gate's looks, app/ready_probes.h).
  Result<std::string> Output(const std::string& script, double timeout_s) const;
  // How many files Stage() sent, and how many it found there already (for tests and the log).
  int sent() const { return sent_; }
  int reused() const { return reused_; }

 protected:
  // The local program and arguments that run `command` (one string for the device's sh).
  virtual std::vector<std::string> ShellArgv(const std::string& command) const = 0;
  // Copies the local file `path` to `remote` on the device, whose folder exists.
  virtual Result<void> Push(const std::string& path, const std::string& remote) = 0;
  // Why a result is the link's failure rather than the command's ("" : the command ran).
  virtual std::string LinkFailure(const CommandResult& r) const = 0;

  // Runs `script` with the device's sh; standard input from `stdin_path` ("" : none).
  Result<CommandResult> Remote(const std::string& script, const std::string& stdin_path = "",
                               double timeout_s = 120) const;
  CommandRunner& runner() const { return runner_; }

 private:
  Result<std::string> Snapshot() const;
  // memory_bandwidth from `probe` (this machine's file) staged and run on the device (under its
  // emulator, if any); {na: why} when it cannot be.
  nlohmann::json Bandwidth(const env::FingerprintOptions& options, const nlohmann::json& facts,
                           int64_t mem_available_bytes);

  std::string workdir_;
  std::string arch_;
  CommandRunner& runner_;
  std::vector<std::string> emulator_;
  std::map<std::string, std::string> staged_;  // local path -> remote path
  int sent_ = 0;
  int reused_ = 0;
  int attempts_ = 0;  // part files of this object, numbered
};

}  // namespace pipette::device
