#include "pipette/device/adb_device.h"

#include <fmt/format.h>

#include <filesystem>

namespace pipette::device {

std::string AdbTarget::DisplayName() const {
  if (!name.empty()) return name;
  return serial.empty() ? "adb" : "adb:" + serial;
}

namespace {

std::vector<std::string> AdbBase(const AdbTarget& t) {
  std::vector<std::string> argv = {t.adb_program};
  if (!t.serial.empty()) argv.insert(argv.end(), {"-s", t.serial});
  return argv;
}

}  // namespace

std::vector<std::string> AdbShellArgv(const AdbTarget& target, const std::string& remote_command) {
  std::vector<std::string> argv = AdbBase(target);
  // One argument: adb joins its words with spaces and the device's sh splits them again, so the
  // command is passed already quoted.
  argv.insert(argv.end(), {"shell", "-T", remote_command});
  return argv;
}

Result<void> AdbDevice::Push(const std::string& path, const std::string& remote) {
  Command c;
  c.argv = AdbBase(target_);
  // adb push takes the remote path as a path, not through a shell: no quoting.
  // The local path absolute: a relative one starting with '-' would be read as an option.
  c.argv.insert(c.argv.end(), {"push", std::filesystem::absolute(path).string(), remote});
  c.timeout_s = 3600;
  auto r = runner().Run(c);
  if (!r) return r.error();
  if (r->timed_out || r->exit_code != 0) {
    return RuntimeError(fmt::format("device {}: adb push {} failed: {}", Name(), path,
                                    r->timed_out ? "no answer within an hour" : r->err));
  }
  return {};
}

std::string AdbDevice::LinkFailure(const CommandResult& r) const {
  // adb's own failures (no such device, offline, unauthorized, the link closed) are its words,
  // "adb: ..." or "error: ...", on standard error with exit code 1; a command's own failure has
  // the command's exit code and words.
  if (r.exit_code == 0) return "";
  for (const char* prefix : {"adb: ", "error: "}) {
    if (r.err.rfind(prefix, 0) == 0) return "adb failed: " + r.err;
  }
  return "";
}

}  // namespace pipette::device
