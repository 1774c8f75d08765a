// The device a run measures on (the experiment's `device:`): where workers run, where the files
// they load must be, what the machine is and how it is doing. The runner starts its workers
// through a Device and speaks the protocol over the channel it returns; LocalDevice
// (local_device.h) is this machine. docs/internals.md "Devices" has the design of remote
// devices (ssh, adb), which copy the worker and the model over and stream the protocol.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/env/fingerprint.h"
#include "pipette/util/result.h"
#include "pipette/worker/channel.h"

namespace pipette::device {

// A worker process's memory as the device's kernel reports it (Linux: /proc/<pid>/status).
struct ProcessMemory {
  int64_t rss_bytes = -1;  // resident now (VmRSS); -1: not reported
  int64_t hwm_bytes = -1;  // peak resident (VmHWM); -1: not reported
};

class Device {
 public:
  virtual ~Device() = default;
  // "local", or the remote device's address.
  virtual std::string Name() const = 0;
  // Starts the worker program `argv[0]` (a path on the controller's machine) with its
  // arguments on the device and returns the channel the protocol is spoken over (a
  // worker::LineChannel over a protocol::Transport).
  virtual Result<std::unique_ptr<worker::WorkerChannel>> StartWorker(
      const std::vector<std::string>& argv) = 0;
  // Makes the file `path` of the controller's machine available on the device and returns the
  // path a worker there opens it by (local: the path itself).
  virtual Result<std::string> Stage(const std::string& path) = 0;
  // The facts of the machine every result carries (env::CollectFingerprint's keys).
  virtual nlohmann::json Fingerprint(const env::FingerprintOptions& options) = 0;
  // Readings now: load average, free memory, CPU temperature where readable, frequency
  // (env::Conditions' keys; unreadable ones null).
  virtual nlohmann::json Conditions() = 0;
  // The memory of the worker process `pid` on the device; nullopt when it cannot be read (the
  // process is gone).
  virtual std::optional<ProcessMemory> WorkerMemory(int pid) const = 0;
  // The instruction set the device's workers run, as `uname -m` names it (x86_64, aarch64): which
  // build of a worker it gets. A device running its workers under an emulator gives the
  // emulated one.
  virtual Result<std::string> Arch() = 0;
  // Whether the device answers now: after a cell failed, this tells a dropped link from a
  // failure of the cell's own. This machine always answers.
  virtual Result<void> CheckLink() { return {}; }
  // Runs `script` with the device's sh and returns what it printed; an error when the link failed
  // or the script exited non-zero (with what it said on standard error).
  virtual Result<std::string> RunScript(const std::string& script, double timeout_s) = 0;
  // StartWorker, with the sh commands `prelude` run first by the shell that then becomes the
  // worker (exec: the worker keeps its pid): how a tier's worker starts inside its cgroups.
  virtual Result<std::unique_ptr<worker::WorkerChannel>> StartWorkerAfter(
      const std::string& prelude, const std::vector<std::string>& argv) = 0;
  // An emulated tier's (device/tiered_device.h) readings of the cgroups of the worker `pid` it
  // started last (env::TierReadScript's keys), the memory peak reset first with reset_peak;
  // null for a device without a tier.
  // The device itself, or the one a wrapper (a tier) runs on: what a probe of the device's own
  // kind (its shell, its files) is made for.
  virtual Device& Underlying() { return *this; }
  virtual Result<nlohmann::json> TierReading(int64_t pid, bool reset_peak) {
    (void)pid, (void)reset_peak;
    return nlohmann::json();
  }
};

}  // namespace pipette::device
