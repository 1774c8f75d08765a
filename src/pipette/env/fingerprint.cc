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

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

std::vector<std::string> SplitWords(std::string_view text) {
  std::vector<std::string> words;
  std::istringstream in{std::string(text)};
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

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

// ARM MIDR implementer ids and ARM Ltd part ids, as /proc/cpuinfo prints them (see lscpu).
std::string ArmImplementerName(int64_t id) {
  static constexpr std::pair<int, std::string_view> kNames[] = {
      {0x41, "ARM"},    {0x42, "Broadcom"}, {0x43, "Cavium"},    {0x48, "HiSilicon"},
      {0x4e, "NVIDIA"}, {0x50, "APM"},      {0x51, "Qualcomm"},  {0x53, "Samsung"},
      {0x61, "Apple"},  {0x69, "Intel"},    {0x6d, "Microsoft"}, {0xc0, "Ampere"}};
  for (const auto& [key, name] : kNames) {
    if (key == id) return std::string(name);
  }
  return fmt::format("implementer 0x{:02x}", id);
}

std::string ArmPartName(int64_t implementer, int64_t part) {
  static constexpr std::pair<int, std::string_view> kArmParts[] = {
      {0xd03, "Cortex-A53"},  {0xd04, "Cortex-A35"},  {0xd05, "Cortex-A55"},  {0xd07, "Cortex-A57"},
      {0xd08, "Cortex-A72"},  {0xd09, "Cortex-A73"},  {0xd0a, "Cortex-A75"},  {0xd0b, "Cortex-A76"},
      {0xd0c, "Neoverse-N1"}, {0xd0d, "Cortex-A77"},  {0xd40, "Neoverse-V1"}, {0xd41, "Cortex-A78"},
      {0xd44, "Cortex-X1"},   {0xd46, "Cortex-A510"}, {0xd47, "Cortex-A710"}, {0xd48, "Cortex-X2"},
      {0xd49, "Neoverse-N2"}, {0xd4b, "Cortex-A78C"}, {0xd4d, "Cortex-A715"}, {0xd4e, "Cortex-X3"},
      {0xd4f, "Neoverse-V2"}, {0xd80, "Cortex-A520"}, {0xd81, "Cortex-A720"}, {0xd82, "Cortex-X4"}};
  if (implementer == 0x41) {
    for (const auto& [key, name] : kArmParts) {
      if (key == part) return std::string(name);
    }
  }
  return fmt::format("part 0x{:03x}", part);
}

std::optional<int64_t> ParseHexOrInt(std::string_view text) {
  text = Trim(text);
  int base = 10;
  if (text.starts_with("0x") || text.starts_with("0X")) {
    text.remove_prefix(2);
    base = 16;
  }
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

// "ARM Cortex-A76" for a uniform CPU; "ARM Cortex-A55 x4 + ARM Cortex-A76 x4" for big.LITTLE.
std::optional<std::string> DescribeArmCores(const std::vector<std::string>& cores) {
  if (cores.empty()) return std::nullopt;
  std::vector<std::pair<std::string, int>> counts;
  for (const std::string& core : cores) {
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&](const auto& entry) { return entry.first == core; });
    if (it == counts.end()) {
      counts.emplace_back(core, 1);
    } else {
      ++it->second;
    }
  }
  if (counts.size() == 1) return counts[0].first;
  std::string out;
  for (const auto& [name, count] : counts) {
    out += fmt::format("{}{} x{}", out.empty() ? "" : " + ", name, count);
  }
  return out;
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

std::optional<int64_t> ParseInt(std::string_view text) {
  text = Trim(text);
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

CpuInfo ParseCpuinfo(std::string_view text) {
  CpuInfo info;
  std::set<std::pair<std::string, std::string>> cores;  // (physical id, core id)
  std::set<std::string> packages;
  std::vector<std::string> arm_cores;
  std::optional<int64_t> first_implementer;
  bool have_flags = false;
  std::optional<std::string> hardware;
  // Per-processor state; cpuinfo lists one block of "key : value" lines per logical CPU.
  std::optional<std::string> physical_id, core_id;
  std::optional<int64_t> implementer, part;
  auto end_block = [&] {
    if (physical_id) packages.insert(*physical_id);
    if (physical_id && core_id) cores.emplace(*physical_id, *core_id);
    if (implementer && part) {
      if (!first_implementer) first_implementer = implementer;
      arm_cores.push_back(ArmImplementerName(*implementer) + " " +
                          ArmPartName(*implementer, *part));
    }
    physical_id.reset();
    core_id.reset();
    implementer.reset();
    part.reset();
  };
  for (std::string_view line : SplitLines(text)) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = Trim(line.substr(0, colon));
    std::string_view value = Trim(line.substr(colon + 1));
    if (key == "processor") {
      end_block();
      ++info.logical;
    } else if (key == "model name" && !info.model) {
      info.model = std::string(value);
    } else if (key == "vendor_id" && !info.vendor) {
      info.vendor = std::string(value);
    } else if (key == "physical id") {
      physical_id = std::string(value);
    } else if (key == "core id") {
      core_id = std::string(value);
    } else if (key == "CPU implementer") {
      implementer = ParseHexOrInt(value);
    } else if (key == "CPU part") {
      part = ParseHexOrInt(value);
    } else if (key == "Hardware" && !hardware) {
      hardware = std::string(value);
    } else if ((key == "flags" || key == "Features") && !have_flags) {
      info.flags = SplitWords(value);
      have_flags = true;
      if (key == "flags") {
        info.hypervisor =
            std::find(info.flags.begin(), info.flags.end(), "hypervisor") != info.flags.end();
      }
    }
  }
  end_block();
  if (!cores.empty()) info.physical = static_cast<int>(cores.size());
  if (!packages.empty()) info.sockets = static_cast<int>(packages.size());
  // ARM: the implementer/part ids say more than "ARMv7 Processor rev 4 (v7l)" or a board name.
  if (auto arm = DescribeArmCores(arm_cores)) {
    info.model = arm;
    if (!info.vendor) info.vendor = ArmImplementerName(*first_implementer);
  }
  if (!info.model) info.model = hardware;
  return info;
}

std::vector<std::string> InterestingIsaFlags(const std::vector<std::string>& flags) {
  static constexpr std::string_view kInteresting[] = {
      // x86
      "sse4_2", "avx", "avx2", "fma", "f16c", "bmi2", "avx512f", "avx512dq", "avx512cd", "avx512bw",
      "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16", "avx512vbmi", "avx_vnni",
      "avx_vnni_int8", "amx_tile", "amx_int8", "amx_bf16", "amx_fp16",
      // ARM
      "neon", "asimd", "fphp", "asimdhp", "asimddp", "asimdfhm", "i8mm", "bf16", "sve", "sve2",
      "svei8mm", "svebf16", "sme", "sme2"};
  std::set<std::string_view> present(flags.begin(), flags.end());
  if (present.count("asimd")) present.insert("neon");  // AdvSIMD is NEON on AArch64
  std::vector<std::string> out;
  for (std::string_view flag : kInteresting) {
    if (present.count(flag)) out.emplace_back(flag);
  }
  return out;
}

MemInfo ParseMeminfo(std::string_view text) {
  MemInfo info;
  for (std::string_view line : SplitLines(text)) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = line.substr(0, colon);
    std::string_view rest = Trim(line.substr(colon + 1));
    int64_t scale = 1;
    if (rest.ends_with("kB")) {
      rest = Trim(rest.substr(0, rest.size() - 2));
      scale = 1024;
    }
    std::optional<int64_t> value = ParseInt(rest);
    if (!value) continue;
    if (key == "MemTotal") info.total_bytes = *value * scale;
    if (key == "MemFree") info.free_bytes = *value * scale;
    if (key == "MemAvailable") info.available_bytes = *value * scale;
  }
  return info;
}

std::optional<LoadAvg> ParseLoadavg(std::string_view text) {
  std::vector<std::string> words = SplitWords(text);
  if (words.size() < 3) return std::nullopt;
  double values[3];
  for (int i = 0; i < 3; ++i) {
    const std::string& w = words[static_cast<size_t>(i)];
    auto [ptr, ec] = std::from_chars(w.data(), w.data() + w.size(), values[i]);
    if (ec != std::errc() || ptr != w.data() + w.size() || !std::isfinite(values[i])) {
      return std::nullopt;
    }
  }
  return LoadAvg{values[0], values[1], values[2]};
}

std::map<std::string, std::string> ParseOsRelease(std::string_view text) {
  std::map<std::string, std::string> out;
  for (std::string_view line : SplitLines(text)) {
    line = Trim(line);
    size_t eq = line.find('=');
    if (line.empty() || line[0] == '#' || eq == std::string_view::npos) continue;
    std::string_view value = line.substr(eq + 1);
    if (value.size() >= 2 && (value[0] == '"' || value[0] == '\'') && value.back() == value[0]) {
      value = value.substr(1, value.size() - 2);
    }
    std::string unescaped;
    for (size_t i = 0; i < value.size(); ++i) {
      if (value[i] == '\\' && i + 1 < value.size()) ++i;
      unescaped += value[i];
    }
    out[std::string(line.substr(0, eq))] = unescaped;
  }
  return out;
}

std::optional<int64_t> ParseCacheSize(std::string_view text) {
  text = Trim(text);
  int shift = 0;
  if (!text.empty()) {
    std::string_view suffixes = "KMG";
    size_t pos = suffixes.find(text.back());
    if (pos != std::string_view::npos) {
      shift = 10 * static_cast<int>(pos + 1);
      text.remove_suffix(1);
    }
  }
  std::optional<int64_t> value = ParseInt(text);
  if (!value || *value < 0) return std::nullopt;
  return *value << shift;
}

bool IsCpuThermalSensor(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return lower.find("cpu") != std::string::npos || lower == "x86_pkg_temp" || lower == "coretemp" ||
         lower == "k10temp" || lower == "zenpower" || lower == "soc_thermal" ||
         lower == "soc-thermal";
}

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
