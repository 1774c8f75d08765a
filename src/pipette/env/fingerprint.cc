#include "pipette/env/fingerprint.h"

#include <fmt/format.h>
#include <openssl/evp.h>
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "pipette/env/machine_files.h"
#include "pipette/protocol/proc_status.h"
#include "pipette/util/files.h"
#include "pipette/util/strings.h"

namespace pipette::env {
namespace {

using nlohmann::json;

constexpr std::string_view kCpuDir = "/sys/devices/system/cpu";

std::vector<std::string> ListDir(const FileSource& files, const std::string& dir) {
  return files.List(dir);
}

std::optional<std::string> ReadTrimmed(const FileSource& files, const std::string& path) {
  std::optional<std::string> text = files.Read(path);
  if (!text) return std::nullopt;
  std::string trimmed(Trim(*text));
  if (trimmed.empty()) return std::nullopt;
  return trimmed;
}

std::optional<int64_t> ReadInt(const FileSource& files, const std::string& path) {
  std::optional<std::string> text = files.Read(path);
  return text ? ParseInt(*text) : std::nullopt;
}

template <class T>
json OrNull(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

// Distinct physical cores and packages from sysfs topology, for when cpuinfo does not list them.
std::pair<std::optional<int>, std::optional<int>> ReadSysfsTopology(const FileSource& files) {
  std::set<std::string> cores;
  std::set<std::string> packages;
  for (const std::string& name : ListDir(files, std::string(kCpuDir))) {
    if (name.size() < 4 || !name.starts_with("cpu") ||
        !std::all_of(name.begin() + 3, name.end(),
                     [](char ch) { return ch >= '0' && ch <= '9'; })) {
      continue;
    }
    std::string topo = fmt::format("{}/{}/topology/", kCpuDir, name);
    auto core = ReadTrimmed(files, topo + "core_cpus_list");
    if (!core) core = ReadTrimmed(files, topo + "thread_siblings_list");
    auto package = ReadTrimmed(files, topo + "package_cpus_list");
    if (!package) package = ReadTrimmed(files, topo + "core_siblings_list");
    if (core) cores.insert(*core);
    if (package) packages.insert(*package);
  }
  auto count = [](const std::set<std::string>& s) {
    return s.empty() ? std::nullopt : std::optional<int>(static_cast<int>(s.size()));
  };
  return {count(cores), count(packages)};
}

std::optional<double> ReadCpuTemperature(const FileSource& files) {
  std::optional<double> hottest;
  auto consider = [&](const std::string& millideg_path) {
    if (auto milli = ReadInt(files, millideg_path)) {
      double c = static_cast<double>(*milli) / 1000.0;
      if (!hottest || c > *hottest) hottest = c;
    }
  };
  for (const std::string& zone : ListDir(files, "/sys/class/thermal")) {
    if (!zone.starts_with("thermal_zone")) continue;
    std::string dir = "/sys/class/thermal/" + zone;
    auto type = ReadTrimmed(files, dir + "/type");
    if (type && IsCpuThermalSensor(*type)) consider(dir + "/temp");
  }
  if (hottest) return hottest;
  for (const std::string& hwmon : ListDir(files, "/sys/class/hwmon")) {
    std::string dir = "/sys/class/hwmon/" + hwmon;
    auto name = ReadTrimmed(files, dir + "/name");
    if (name && IsCpuThermalSensor(*name)) consider(dir + "/temp1_input");
  }
  return hottest;
}

std::string CompilerVersion() {
#if defined(__clang__)
  return __VERSION__;
#elif defined(__GNUC__)
  return "GCC " __VERSION__;
#else
  return "unknown";
#endif
}

}  // namespace

CacheSizes ReadCacheSizes() { return CacheSizesFrom(LocalFiles()); }

CacheSizes CacheSizesFrom(const FileSource& files) {
  CacheSizes sizes;
  std::string base = fmt::format("{}/cpu0/cache/", kCpuDir);
  for (const std::string& index : ListDir(files, base)) {
    if (!index.starts_with("index")) continue;
    std::string dir = base + index + "/";
    auto level = ReadInt(files, dir + "level");
    auto type = ReadTrimmed(files, dir + "type");
    auto size = ReadTrimmed(files, dir + "size");
    std::optional<int64_t> bytes = size ? ParseCacheSize(*size) : std::nullopt;
    if (!level || !type || !bytes) continue;
    if (*level == 1 && *type == "Data") sizes.l1d = bytes;
    if (*level == 1 && *type == "Instruction") sizes.l1i = bytes;
    if (*level == 2) sizes.l2 = bytes;
    if (*level == 3) sizes.l3 = bytes;
  }
  return sizes;
}

nlohmann::json FingerprintFromFiles(const FileSource& files, const HostFacts& host) {
  json fp = json::object();
  std::optional<std::string> cpuinfo_text = files.Read("/proc/cpuinfo");
  CpuInfo cpu = cpuinfo_text ? ParseCpuinfo(*cpuinfo_text) : CpuInfo{};
  auto [sysfs_cores, sysfs_sockets] = ReadSysfsTopology(files);
  fp["cpu_model"] = OrNull(cpu.model);
  fp["cpu_vendor"] = OrNull(cpu.vendor);
  fp["cpu_cores_logical"] = cpu.logical > 0 ? json(cpu.logical) : OrNull(host.online);
  fp["cpu_cores_physical"] = OrNull(cpu.physical ? cpu.physical : sysfs_cores);
  fp["cpu_sockets"] = OrNull(cpu.sockets ? cpu.sockets : sysfs_sockets);
  fp["cpu_cores_available"] = OrNull(host.available);
  fp["isa_flags"] = InterestingIsaFlags(cpu.flags);
  fp["virtualized"] = OrNull(cpu.hypervisor);

  CacheSizes caches = CacheSizesFrom(files);
  fp["cache_l1d_bytes"] = OrNull(caches.l1d);
  fp["cache_l1i_bytes"] = OrNull(caches.l1i);
  fp["cache_l2_bytes"] = OrNull(caches.l2);
  fp["cache_l3_bytes"] = OrNull(caches.l3);

  std::optional<std::string> meminfo = files.Read("/proc/meminfo");
  fp["mem_total_bytes"] = OrNull(meminfo ? ParseMeminfo(*meminfo).total_bytes : std::nullopt);

  std::optional<std::string> os_release = files.Read("/etc/os-release");
  if (!os_release) os_release = files.Read("/usr/lib/os-release");
  std::map<std::string, std::string> os =
      os_release ? ParseOsRelease(*os_release) : std::map<std::string, std::string>{};
  fp["os"] = os.count("PRETTY_NAME") ? json(os["PRETTY_NAME"]) : json(nullptr);

  fp["kernel"] = OrNull(host.kernel);
  fp["arch"] = OrNull(host.arch);
  fp["hostname"] = OrNull(host.hostname);

  std::string freq = fmt::format("{}/cpu0/cpufreq/", kCpuDir);
  fp["cpu_governor"] = OrNull(ReadTrimmed(files, freq + "scaling_governor"));
  fp["cpu_freq_max_khz"] = OrNull(ReadInt(files, freq + "cpuinfo_max_freq"));
  fp["cpu_freq_scaling_max_khz"] = OrNull(ReadInt(files, freq + "scaling_max_freq"));
  fp["cpu_freq_cur_khz"] = OrNull(ReadInt(files, freq + "scaling_cur_freq"));
  return fp;
}

std::optional<int64_t> OwnPeakRssBytes() {
  auto status = ReadFileToString("/proc/self/status");
  if (!status) return std::nullopt;
  return protocol::ProcStatusBytes(*status, "VmHWM");
}

json LocalBandwidth(const std::string& probe, const json& facts) {
  if (probe.empty()) {
    return {{"na", "no memory bandwidth probe (pipette-probe) was given to run"}};
  }
  std::vector<std::string> argv = {probe};
  for (std::string& a : BandwidthProbeArgs(facts, ReadConditions().mem_available_bytes)) {
    argv.push_back(std::move(a));
  }
  ProcessCommandRunner runner;
  return BandwidthFact(runner.Run({.argv = argv, .timeout_s = kBandwidthProbeTimeoutS}), probe);
}

nlohmann::json CollectFingerprint(const FingerprintOptions& opts) {
  HostFacts host;
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  if (online > 0) host.online = static_cast<int>(online);
  cpu_set_t affinity;
  CPU_ZERO(&affinity);
  if (sched_getaffinity(0, sizeof(affinity), &affinity) == 0) {
    host.available = CPU_COUNT(&affinity);
  }
  utsname uts{};
  if (uname(&uts) == 0) {
    host.kernel = uts.release;
    host.arch = uts.machine;
    host.hostname = uts.nodename;
  }
  json fp = FingerprintFromFiles(LocalFiles(), host);
  fp["compiler"] = CompilerVersion();

  if (opts.measure_bandwidth) fp["memory_bandwidth"] = LocalBandwidth(opts.bandwidth_probe, fp);
  return fp;
}

Conditions ReadConditions() { return ConditionsFromFiles(LocalFiles()); }

Conditions ConditionsFromFiles(const FileSource& files) {
  Conditions c;
  if (auto text = files.Read("/proc/loadavg")) {
    if (auto load = ParseLoadavg(*text)) {
      c.load_avg_1 = load->one;
      c.load_avg_5 = load->five;
      c.load_avg_15 = load->fifteen;
    }
  }
  if (auto text = files.Read("/proc/meminfo")) {
    MemInfo mem = ParseMeminfo(*text);
    c.mem_available_bytes = mem.available_bytes.value_or(-1);
    c.mem_free_bytes = mem.free_bytes.value_or(-1);
  }
  c.cpu_temp_c = ReadCpuTemperature(files);
  c.cpu_freq_cur_khz = ReadInt(files, fmt::format("{}/cpu0/cpufreq/scaling_cur_freq", kCpuDir));
  return c;
}

nlohmann::json ToJson(const Conditions& c) {
  auto non_negative = [](auto v) { return v >= 0 ? json(v) : json(nullptr); };
  return {{"load_avg_1", non_negative(c.load_avg_1)},
          {"load_avg_5", non_negative(c.load_avg_5)},
          {"load_avg_15", non_negative(c.load_avg_15)},
          {"mem_available_bytes", non_negative(c.mem_available_bytes)},
          {"mem_free_bytes", non_negative(c.mem_free_bytes)},
          {"cpu_temp_c", OrNull(c.cpu_temp_c)},
          {"cpu_freq_cur_khz", OrNull(c.cpu_freq_cur_khz)}};
}

std::string FingerprintId(const nlohmann::json& fingerprint) {
  // `tier`: an emulated tier of a machine is a device of its own.
  static constexpr std::string_view kHardwareKeys[] = {"cpu_model",
                                                       "cpu_vendor",
                                                       "cpu_cores_logical",
                                                       "cpu_cores_physical",
                                                       "cpu_sockets",
                                                       "isa_flags",
                                                       "cache_l1d_bytes",
                                                       "cache_l1i_bytes",
                                                       "cache_l2_bytes",
                                                       "cache_l3_bytes",
                                                       "arch",
                                                       "virtualized",
                                                       "tier",
                                                       "cpu_freq_max_khz",
                                                       "emulated"};
  json stable = json::object();
  if (fingerprint.is_object()) {
    for (std::string_view key : kHardwareKeys) {
      auto it = fingerprint.find(key);
      if (it != fingerprint.end()) stable[std::string(key)] = *it;
    }
    // MemTotal moves by a few MiB between kernel versions; whole GiB identify the machine.
    auto mem = fingerprint.find("mem_total_bytes");
    if (mem != fingerprint.end() && mem->is_number()) {
      stable["mem_total_gib"] = std::llround(mem->get<double>() / double(int64_t{1} << 30));
    }
  }
  std::string canonical = stable.dump();  // object keys are sorted: the dump is canonical
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(canonical.data(), canonical.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
    return "";
  }
  std::string hex;
  for (unsigned int i = 0; i < 8 && i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace pipette::env
