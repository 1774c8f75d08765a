// A phone (or any Android device) reached over adb (a RemoteShellDevice, remote_device.h):
// commands run as `adb -s SERIAL shell -T '<command>'` (no tty: the protocol's bytes pass
// untouched), files go by `adb push`, into a work folder such as /data/local/tmp/pipette (the
// folder an app-less shell user may write and execute in). The worker's parent is adbd itself, a
// daemon that outlives the session, so the death signal asked for by PIPETTE_EXIT_WITH_PARENT
// does not fire there: what ends the worker when the USB or TCP link drops is adbd's SIGHUP to
// the session's process (its shell service does so when the session's socket closes), whose
// default action the worker keeps. Untested here: no phone reaches this machine.
//
// Memory on Android: the worker reads its own /proc/self/status, as on Linux. A phone under
// memory pressure swaps to zram, and pages swapped out are not in VmHWM, so the worker also keeps
// the largest VmRSS + VmSwap it sampled after each request, and peak RSS is the larger of the two
// (docs/metrics.md "peak RSS").
#pragma once

#include <string>
#include <vector>

#include "pipette/device/remote_device.h"

namespace pipette::device {

struct AdbTarget {
  std::string name;    // how results name the device; default "adb:SERIAL"
  std::string serial;  // `adb devices` lists it; "" : the only device attached
  std::string workdir = "/data/local/tmp/pipette";
  std::string arch;  // "" : probed (`uname -m` on the device)
  std::string adb_program = "adb";

  std::string DisplayName() const;
};

// The adb command that runs `remote_command` (one string for the device's sh) on `target`.
std::vector<std::string> AdbShellArgv(const AdbTarget& target, const std::string& remote_command);

class AdbDevice : public RemoteShellDevice {
 public:
  AdbDevice(AdbTarget target, CommandRunner& runner)
      : RemoteShellDevice(target.workdir, target.arch, runner), target_(std::move(target)) {}
  std::string Name() const override { return target_.DisplayName(); }

 protected:
  std::vector<std::string> ShellArgv(const std::string& command) const override {
    return AdbShellArgv(target_, command);
  }
  Result<void> Push(const std::string& path, const std::string& remote) override;
  std::string LinkFailure(const CommandResult& r) const override;

 private:
  AdbTarget target_;
};

}  // namespace pipette::device
