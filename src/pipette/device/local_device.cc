#include "pipette/device/local_device.h"

#include <fmt/format.h>
#include <sys/utsname.h>

#include <filesystem>

#include "pipette/env/fingerprint.h"
#include "pipette/protocol/proc_status.h"
#include "pipette/util/files.h"

namespace pipette::device {
namespace fs = std::filesystem;

Result<std::unique_ptr<worker::WorkerChannel>> LocalDevice::StartWorker(
    const std::vector<std::string>& argv) {
  if (argv.empty()) return RuntimeError("no worker program to start");
  return (launcher_ ? *launcher_ : processes_).Launch(argv);
}

Result<std::string> LocalDevice::RunScript(const std::string& script, double timeout_s) {
  Command c;
  c.argv = {"/bin/sh", "-c", script};
  c.timeout_s = timeout_s;
  auto r = commands_.Run(c);
  if (!r) return r.error();
  if (r->timed_out)
    return RuntimeError(fmt::format("a script on this machine ran past {} s", timeout_s));
  if (r->exit_code != 0) {
    return RuntimeError(fmt::format("a script on this machine exited with {}: {}", r->exit_code,
                                    r->err.substr(0, 300)));
  }
  return r->out;
}

Result<std::unique_ptr<worker::WorkerChannel>> LocalDevice::StartWorkerAfter(
    const std::string& prelude, const std::vector<std::string>& argv) {
  if (argv.empty()) return RuntimeError("no worker program to start");
  std::vector<std::string> shell = {"/bin/sh", "-c", prelude + "\nexec \"$@\"", "sh"};
  shell.insert(shell.end(), argv.begin(), argv.end());
  return StartWorker(shell);
}

Result<std::string> LocalDevice::Stage(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    return RuntimeError(fmt::format("{}: no such file to stage on the local device", path));
  }
  return fs::absolute(path).lexically_normal().string();
}

nlohmann::json LocalDevice::Fingerprint(const env::FingerprintOptions& options) {
  return env::CollectFingerprint(options);
}

nlohmann::json LocalDevice::Conditions() { return env::ToJson(env::ReadConditions()); }

Result<std::string> LocalDevice::Arch() {
  struct utsname u {};
  if (::uname(&u) != 0)
    return RuntimeError("uname() failed: cannot tell this machine's architecture");
  return std::string(u.machine);
}

std::optional<ProcessMemory> LocalDevice::WorkerMemory(int pid) const {
  if (pid <= 0) return std::nullopt;
  auto text = ReadFileToString(fmt::format("/proc/{}/status", pid));
  if (!text) return std::nullopt;
  return ParseProcStatusMemory(*text);
}

ProcessMemory ParseProcStatusMemory(std::string_view status) {
  ProcessMemory m;
  m.rss_bytes = protocol::ProcStatusBytes(status, "VmRSS").value_or(-1);
  m.hwm_bytes = protocol::ProcStatusBytes(status, "VmHWM").value_or(-1);
  return m;
}

}  // namespace pipette::device
