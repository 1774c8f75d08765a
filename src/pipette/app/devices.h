// The experiment's devices other than this machine, for one run: each made from its entry
// (device/registry.h) when its first cell runs, its fingerprint stored as the environment its
// cells point at, and the worker program each gets (built for its architecture).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "pipette/config/experiment.h"
#include "pipette/device/device.h"
#include "pipette/device/registry.h"
#include "pipette/run/runner.h"
#include "pipette/store/store.h"
#include "pipette/util/command.h"

namespace pipette::app {

// Where the worker programs built for another architecture are: PIPETTE_WORKERS_DIR_<ARCH>
// (PIPETTE_WORKERS_DIR_AARCH64), else build-<arch>/ beside the folder of `workers_dir`
// (scripts/build-worker.sh ARCH builds them there).
std::string CrossWorkersDir(const std::string& workers_dir, const std::string& arch);

// A device made from its experiment entry by its kind (`kinds`: Pipette's unless given), not yet
// connected.
Result<std::unique_ptr<device::Device>> MakeDevice(
    const config::DeviceSpec& spec, CommandRunner& runner,
    const device::DeviceKindRegistry& kinds = device::DeviceKinds());
// Connects (a `true` through its shell), reads its architecture and its fingerprint (on the
// device; with options.measure_bandwidth the probe options.bandwidth_probe staged and run there),
// with the entry's name, kind and address as `device`, and for an emulated one the instruction
// set it emulates as `emulated.arch`.
Result<nlohmann::json> DeviceFingerprint(device::Device& d, const config::DeviceSpec& spec,
                                         const env::FingerprintOptions& options);

// The program `own` (a path in this machine's build: a worker, pipette-probe) built for the
// architecture of `device`: from CrossWorkersDir(workers_dir), which must have it, unless the
// device has this machine's architecture (`local`'s): then that build where one was made (a
// portable one), else `own` itself, with `note` saying so.
Result<std::string> ProgramFor(const std::string& own, const std::string& workers_dir,
                               device::Device& local, device::Device& device, std::string* note);

// The fingerprint options for `device`: with `measure_bandwidth`, pipette-probe built for its
// architecture (ProgramFor; none built: the bandwidth is n/a with the reason); `device` being
// `local` itself (this machine, or a tier of it): this machine's own probe.
env::FingerprintOptions FingerprintOptionsFor(bool measure_bandwidth,
                                              const std::string& workers_dir, device::Device& local,
                                              device::Device& device, std::string* note);

class RunDevices {
 public:
  // `measure_bandwidth`: each device's fingerprint gets its memory bandwidth, measured there by
  // pipette-probe built for its architecture (found as its worker is: ProgramFor).
  // `kinds`: the device kinds the experiment's entries name (Pipette's unless given).
  RunDevices(device::Device& local, store::Store& store, std::string workers_dir,
             bool measure_bandwidth = true,
             const device::DeviceKindRegistry& kinds = device::DeviceKinds())
      : local_(local),
        store_(store),
        workers_dir_(std::move(workers_dir)),
        measure_bandwidth_(measure_bandwidth),
        kinds_(kinds) {}

  // When resuming run `run_id`: the environment each device had when it measured its earlier
  // cells there (DeviceEnvironmentsOf), which Open checks the device against.
  void ExpectEnvironments(int64_t run_id, std::map<std::string, store::EnvironmentRecord> by_name) {
    resumed_run_ = run_id;
    expected_ = std::move(by_name);
  }

  // run::RunnerDeps::open_device: connects (a `true` through its shell), reads its fingerprint
  // (with the entry's name, kind and address, and for an emulated one its instruction set),
  // checks it against the one its earlier cells recorded when resuming (CheckSameDevice), and
  // stores it.
  Result<run::OpenDevice> Open(const config::DeviceSpec& spec);
  // run::RunnerDeps::worker_for: the program built for the device's architecture
  // (CrossWorkersDir), which must exist, unless the device has this machine's architecture: then
  // that build where one was made (a portable one), else this machine's own worker, noting it.
  Result<std::string> WorkerFor(const config::RuntimeSpec& runtime, device::Device& device);
  // The same for any program of this machine's build (`own`: its path here), e.g. pipette-probe.
  Result<std::string> ProgramFor(const std::string& own, device::Device& device);
  // The notes on the workers staged, then one line per device opened: how many files were staged
  // there and how many were found there already by their SHA-256 ("device board: 1 file(s) sent,
  // 1 found there already by SHA-256").
  std::vector<std::string> StagingSummary() const;

 private:
  device::Device& local_;
  store::Store& store_;
  std::string workers_dir_;
  bool measure_bandwidth_ = true;
  ProcessCommandRunner runner_;
  const device::DeviceKindRegistry& kinds_;
  std::map<std::string, std::unique_ptr<device::Device>> devices_;
  std::set<std::string> notes_;
  int64_t resumed_run_ = 0;
  std::map<std::string, store::EnvironmentRecord> expected_;
};

}  // namespace pipette::app
