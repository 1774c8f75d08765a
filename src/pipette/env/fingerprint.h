// Environment fingerprint: the device facts every result carries (docs/metrics.md, "What every
// result carries"), and the conditions read at the start of each benchmark cell.
//
// Facts are read from Linux /proc and /sys. A fact the system does not expose is null: nothing is
// estimated. The texts are parsed by proc_text.h (ARM core names: arm_cores.h);
// CollectFingerprint / ReadConditions are the thin layer that reads the real files.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/env/bandwidth.h"
#include "pipette/env/proc_text.h"

namespace pipette::env {

struct FingerprintOptions {
  bool measure_bandwidth = true;
  // pipette-probe built for the device's architecture, on this machine (a remote device stages
  // it); "" with measure_bandwidth: memory_bandwidth is n/a with that reason.
  std::string bandwidth_probe;
  // Why there is none (e.g. none built for the device's architecture, and how to build it).
  std::string bandwidth_probe_missing;
};

// How long the memory bandwidth probe may take before it counts as failed.
inline constexpr double kBandwidthProbeTimeoutS = 300;

// This process's peak resident memory (VmHWM of /proc/self/status) in bytes; nullopt where the
// kernel does not report it.
std::optional<int64_t> OwnPeakRssBytes();

// memory_bandwidth of this machine: `probe` run here as a child process (env/bandwidth.h).
nlohmann::json LocalBandwidth(const std::string& probe, const nlohmann::json& facts);

// Keys: cpu_model, cpu_vendor, cpu_cores_logical, cpu_cores_physical, cpu_sockets,
// cpu_cores_available (affinity of this process), isa_flags, cache_{l1d,l1i,l2,l3}_bytes,
// mem_total_bytes, os, kernel, arch, hostname, cpu_governor, cpu_freq_{max,scaling_max,cur}_khz,
// virtualized, compiler; and memory_bandwidth {triad_bytes_per_s, copy_bytes_per_s, array_bytes,
// threads, repetitions} (or {na: why}) only when asked (measure_bandwidth). Unavailable facts are
// null.
nlohmann::json CollectFingerprint(const FingerprintOptions& opts = {});

// Readings taken at the start of each benchmark cell. -1 / nullopt: not available.
struct Conditions {
  double load_avg_1 = -1, load_avg_5 = -1, load_avg_15 = -1;
  int64_t mem_available_bytes = -1;
  int64_t mem_free_bytes = -1;
  std::optional<double> cpu_temp_c;
  std::optional<int64_t> cpu_freq_cur_khz;
};
Conditions ReadConditions();
// Same field names as Conditions; unavailable readings become null.
nlohmann::json ToJson(const Conditions& conditions);

// First 16 hex digits of SHA-256 over the canonical dump of the hardware facts only (CPU, cores,
// ISA flags, caches, memory rounded to GiB, arch, virtualized, max frequency). Hostname, OS,
// kernel, governor, frequencies now, affinity and measured bandwidth are left out, so the id
// stays the same from run to run and across software updates of the same machine.
std::string FingerprintId(const nlohmann::json& fingerprint);

// ---- Readers of the real system ----

struct CacheSizes {
  std::optional<int64_t> l1d, l1i, l2, l3;
};
// From /sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}.
CacheSizes ReadCacheSizes();

}  // namespace pipette::env
