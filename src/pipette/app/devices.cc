#include "pipette/app/devices.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "pipette/app/resume_checks.h"
#include "pipette/device/registry.h"
#include "pipette/device/remote_device.h"
#include "pipette/device/tiered_device.h"
#include "pipette/env/cgroup_tier.h"
#include "pipette/env/fingerprint.h"

namespace pipette::app {
namespace fs = std::filesystem;

std::string CrossWorkersDir(const std::string& workers_dir, const std::string& arch) {
  std::string var = "PIPETTE_WORKERS_DIR_" + arch;
  std::transform(var.begin(), var.end(), var.begin(),
                 [](unsigned char c) { return std::isalnum(c) ? std::toupper(c) : '_'; });
  if (const char* v = std::getenv(var.c_str()); v && *v) return v;
  const fs::path dir = fs::path(workers_dir).lexically_normal();
  const fs::path base = dir.has_filename() ? dir : dir.parent_path();
  return (base.parent_path() / ("build-" + arch)).string();
}

Result<std::unique_ptr<device::Device>> MakeDevice(const config::DeviceSpec& spec,
                                                   CommandRunner& runner,
                                                   const device::DeviceKindRegistry& kinds) {
  const device::DeviceKind* kind = kinds.Find(spec.kind);
  if (!kind) return RuntimeError(fmt::format("device kind '{}' is not known", spec.kind));
  auto made = kind->make(spec.name, spec.options, runner);
  if (!made || !spec.Tiered()) return made;
  return std::unique_ptr<device::Device>(
      new device::TieredDevice(std::move(*made), env::Tier::FromJson(spec.tier), spec.name));
}

Result<nlohmann::json> DeviceFingerprint(device::Device& d, const config::DeviceSpec& spec,
                                         const env::FingerprintOptions& options) {
  if (auto link = d.CheckLink(); !link) return link.error();
  auto arch = d.Arch();
  if (!arch) return arch.error();
  nlohmann::json facts = d.Fingerprint(options);
  facts["device"] = {{"name", spec.name}, {"kind", spec.kind}, {"address", spec.Address()}};
  if (spec.Emulated()) facts["emulated"]["arch"] = *arch;
  if (spec.Tiered()) {
    const env::Tier tier = env::Tier::FromJson(spec.tier);
    // Which cgroup version gives each controller the tier uses there ({"cpu": "v2", ...}).
    nlohmann::json versions = nlohmann::json::object();
    if (auto printed = d.RunScript(env::TierVersionsScript(tier), 30)) {
      std::istringstream lines(*printed);
      std::string controller, version;
      while (lines >> controller >> version) versions[controller] = version;
    } else {
      // Why, beside the tier: the tier's facts are hashed into the device's id, a passing error's
      // words must not change it.
      versions = "n/a";
      facts["tier_cgroup_na"] = printed.error().message;
    }
    facts["tier"] = {{"limits", tier.ToJson()}, {"label", tier.Label()}, {"cgroup", versions}};
  }
  return facts;
}

env::FingerprintOptions FingerprintOptionsFor(bool measure_bandwidth,
                                              const std::string& workers_dir, device::Device& local,
                                              device::Device& device, std::string* note) {
  env::FingerprintOptions options;
  options.measure_bandwidth = measure_bandwidth;
  if (measure_bandwidth) {
    const std::string here = (fs::path(workers_dir) / env::kProbeProgram).string();
    if (&device == &local) {  // this machine (a tier of it too): its own probe
      options.bandwidth_probe = here;
      return options;
    }
    auto probe = ProgramFor(here, workers_dir, local, device, note);
    if (probe) {
      options.bandwidth_probe = *probe;
    } else {
      options.bandwidth_probe_missing = probe.error().message;  // n/a with that reason
    }
  }
  return options;
}

Result<run::OpenDevice> RunDevices::Open(const config::DeviceSpec& spec) {
  auto made = MakeDevice(spec, runner_, kinds_);
  if (!made) return made.error();
  device::Device& d = **made;
  std::string note;
  // A tier of this machine runs this machine's own probe (outside the tier: the bandwidth is the
  // machine's).
  env::FingerprintOptions options =
      spec.kind == "local"
          ? FingerprintOptionsFor(measure_bandwidth_, workers_dir_, local_, local_, &note)
          : FingerprintOptionsFor(measure_bandwidth_, workers_dir_, local_, d, &note);
  auto facts = DeviceFingerprint(d, spec, options);
  if (!note.empty()) notes_.insert(std::move(note));
  if (!facts) return facts.error();
  if (auto then = expected_.find(spec.name); then != expected_.end()) {
    if (auto same = CheckSameDevice(spec.name, resumed_run_, then->second, *facts); !same) {
      return same.error();
    }
  }
  auto env_id = store_.AddEnvironment({0, env::FingerprintId(*facts), *facts});
  if (!env_id) return env_id.error();
  run::OpenDevice open{&d, *env_id};
  devices_[spec.name] = std::move(*made);
  return open;
}

std::vector<std::string> RunDevices::StagingSummary() const {
  std::vector<std::string> out(notes_.begin(), notes_.end());
  for (const auto& [name, d] : devices_) {
    const auto* remote = dynamic_cast<const device::RemoteShellDevice*>(&d->Underlying());
    if (!remote) continue;
    out.push_back(fmt::format("device {}: {} file(s) sent, {} found there already by SHA-256", name,
                              remote->sent(), remote->reused()));
  }
  return out;
}

Result<std::string> RunDevices::WorkerFor(const config::RuntimeSpec& runtime,
                                          device::Device& device) {
  return ProgramFor(runtime.worker, device);
}

Result<std::string> RunDevices::ProgramFor(const std::string& own, device::Device& device) {
  std::string note;
  auto program = app::ProgramFor(own, workers_dir_, local_, device, &note);
  // Nothing is staged for this machine itself: no note.
  if (!note.empty() && &device != &local_) notes_.insert(std::move(note));
  return program;
}

Result<std::string> ProgramFor(const std::string& own, const std::string& workers_dir,
                               device::Device& local, device::Device& device, std::string* note) {
  auto here = local.Arch();
  if (!here) return here.error();
  auto there = device.Arch();
  if (!there) return there.error();
  const fs::path program = fs::path(own).filename();
  const fs::path cross = fs::path(CrossWorkersDir(workers_dir, *there)) / program;
  std::error_code ec;
  if (*here == *there) {
    // A portable build for the architecture, where one was made, else this machine's own.
    if (fs::is_regular_file(cross, ec)) return cross.string();
    *note = fmt::format(
        "device {}: staged this machine's own {}, built for this machine's CPU against its shared "
        "libraries; for a board whose CPU or libraries differ, build a portable one with "
        "scripts/build-worker.sh {} (it is then staged instead)",
        device.Name(), program.string(), *there);
    return own;
  }
  if (!fs::is_regular_file(cross, ec)) {
    return RuntimeError(fmt::format(
        "device {} runs {} workers, and there is no {} built for {} at {}: build it with "
        "scripts/build-worker.sh {} (or point PIPETTE_WORKERS_DIR_{} at one)",
        device.Name(), *there, program.string(), *there, cross.string(), *there, [&] {
          std::string up = *there;
          for (char& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
          return up;
        }()));
  }
  return cross.string();
}

}  // namespace pipette::app
