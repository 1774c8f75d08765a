#include "pipette/env/proc_text.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pipette::env {
namespace {

// Two cores with two hyper-threads each on one socket (Sapphire Rapids, flags shortened).
constexpr std::string_view kX86Cpuinfo =
    R"(processor	: 0
vendor_id	: GenuineIntel
cpu family	: 6
model		: 143
model name	: Intel(R) Xeon(R) Platinum 8480+
stepping	: 8
cpu MHz		: 2000.000
cache size	: 107520 KB
physical id	: 0
siblings	: 4
core id		: 0
cpu cores	: 2
flags		: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx)"
    R"( fxsr sse sse2 ss ht syscall nx pdpe1gb rdtscp lm constant_tsc pni pclmulqdq ssse3 fma)"
    R"( cx16 sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand lahf_lm abm bmi1 avx2)"
    R"( bmi2 erms avx512f avx512dq rdseed adx avx512ifma avx512cd sha_ni avx512bw avx512vl)"
    R"( avx512_bf16 avx_vnni avx512vbmi avx512_vnni avx512_fp16 amx_bf16 amx_tile amx_int8
bogomips	: 4000.00
address sizes	: 46 bits physical, 57 bits virtual
power management:

processor	: 1
vendor_id	: GenuineIntel
model name	: Intel(R) Xeon(R) Platinum 8480+
physical id	: 0
core id		: 0
flags		: fpu avx2

processor	: 2
vendor_id	: GenuineIntel
model name	: Intel(R) Xeon(R) Platinum 8480+
physical id	: 0
core id		: 1
flags		: fpu avx2

processor	: 3
vendor_id	: GenuineIntel
model name	: Intel(R) Xeon(R) Platinum 8480+
physical id	: 0
core id		: 1
flags		: fpu avx2
)";

// RK3588-style big.LITTLE board (2 + 2 cores shown), as an aarch64 kernel prints it.
constexpr std::string_view kArmCpuinfo = R"(processor	: 0
BogoMIPS	: 48.00
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm)"
                                         R"( lrcpc dcpop asimddp
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x2
CPU part	: 0xd05
CPU revision	: 0

processor	: 1
BogoMIPS	: 48.00
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm)"
                                         R"( lrcpc dcpop asimddp
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x2
CPU part	: 0xd05
CPU revision	: 0

processor	: 4
BogoMIPS	: 48.00
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm)"
                                         R"( lrcpc dcpop asimddp
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x4
CPU part	: 0xd0b
CPU revision	: 0

processor	: 5
BogoMIPS	: 48.00
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm)"
                                         R"( lrcpc dcpop asimddp
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x4
CPU part	: 0xd0b
CPU revision	: 0
)";

TEST(ParseCpuinfoTest, X86) {
  CpuInfo info = ParseCpuinfo(kX86Cpuinfo);
  EXPECT_EQ(info.model, "Intel(R) Xeon(R) Platinum 8480+");
  EXPECT_EQ(info.vendor, "GenuineIntel");
  EXPECT_EQ(info.logical, 4);
  EXPECT_EQ(info.physical, 2);
  EXPECT_EQ(info.sockets, 1);
  EXPECT_EQ(info.hypervisor, false);
  std::vector<std::string> expected = {
      "sse4_2",     "avx",      "avx2",     "fma",      "f16c",        "bmi2",        "avx512f",
      "avx512dq",   "avx512cd", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16",
      "avx512vbmi", "avx_vnni", "amx_tile", "amx_int8", "amx_bf16"};
  EXPECT_EQ(InterestingIsaFlags(info.flags), expected);
}

TEST(ParseCpuinfoTest, HypervisorFlag) {
  CpuInfo info = ParseCpuinfo("processor : 0\nflags : fpu sse2 hypervisor avx\n");
  EXPECT_EQ(info.hypervisor, true);
  EXPECT_FALSE(info.physical.has_value());
  EXPECT_FALSE(info.model.has_value());
}

TEST(ParseCpuinfoTest, Aarch64BigLittle) {
  CpuInfo info = ParseCpuinfo(kArmCpuinfo);
  EXPECT_EQ(info.model, "ARM Cortex-A55 x2 + ARM Cortex-A76 x2");
  EXPECT_EQ(info.vendor, "ARM");
  EXPECT_EQ(info.logical, 4);
  EXPECT_FALSE(info.physical.has_value());  // aarch64 cpuinfo has no core ids: sysfs decides
  EXPECT_FALSE(info.sockets.has_value());
  EXPECT_FALSE(info.hypervisor.has_value());
  std::vector<std::string> expected = {"neon", "asimd", "fphp", "asimdhp", "asimddp"};
  EXPECT_EQ(InterestingIsaFlags(info.flags), expected);
}

TEST(ParseCpuinfoTest, ArmUnknownPartAndEmptyInput) {
  CpuInfo info = ParseCpuinfo(
      "processor : 0\nFeatures : fp asimd sve i8mm bf16\nCPU implementer : 0xc0\n"
      "CPU part : 0xac3\n");
  EXPECT_EQ(info.model, "Ampere part 0xac3");
  EXPECT_EQ(info.vendor, "Ampere");
  CpuInfo empty = ParseCpuinfo("");
  EXPECT_EQ(empty.logical, 0);
  EXPECT_FALSE(empty.model.has_value());
  EXPECT_TRUE(InterestingIsaFlags(empty.flags).empty());
}

TEST(ParseMeminfoTest, ReadsKilobytes) {
  MemInfo mem = ParseMeminfo(
      "MemTotal:       24684096 kB\nMemFree:        22953460 kB\n"
      "MemAvailable:   23467940 kB\nBuffers:           12345 kB\nHugePages_Total:       0\n");
  EXPECT_EQ(mem.total_bytes, int64_t{24684096} * 1024);
  EXPECT_EQ(mem.free_bytes, int64_t{22953460} * 1024);
  EXPECT_EQ(mem.available_bytes, int64_t{23467940} * 1024);
  EXPECT_FALSE(ParseMeminfo("MemTotal: lots\n").total_bytes.has_value());
}

TEST(ParseLoadavgTest, ThreeFigures) {
  auto load = ParseLoadavg("1.96 1.11 0.47 3/94 4556\n");
  ASSERT_TRUE(load.has_value());
  EXPECT_DOUBLE_EQ(load->one, 1.96);
  EXPECT_DOUBLE_EQ(load->five, 1.11);
  EXPECT_DOUBLE_EQ(load->fifteen, 0.47);
  EXPECT_FALSE(ParseLoadavg("1.0 2.0").has_value());
  EXPECT_FALSE(ParseLoadavg("a b c d").has_value());
}

TEST(ParseOsReleaseTest, QuotesEscapesAndComments) {
  auto os = ParseOsRelease(
      "# comment\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n"
      "NAME='Quoted \\\"name\\\"'\n\nBROKEN LINE\n");
  EXPECT_EQ(os["PRETTY_NAME"], "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(os["ID"], "debian");
  EXPECT_EQ(os["NAME"], "Quoted \"name\"");
  EXPECT_EQ(os.size(), 3u);
}

TEST(ParseCacheSizeTest, Suffixes) {
  EXPECT_EQ(ParseCacheSize("32K\n"), 32 * 1024);
  EXPECT_EQ(ParseCacheSize("32768K"), int64_t{32} << 20);
  EXPECT_EQ(ParseCacheSize("2M"), int64_t{2} << 20);
  EXPECT_EQ(ParseCacheSize("512"), 512);
  EXPECT_FALSE(ParseCacheSize("").has_value());
  EXPECT_FALSE(ParseCacheSize("K").has_value());
  EXPECT_FALSE(ParseCacheSize("big").has_value());
}

TEST(ParseIntTest, WholeNumbersOnly) {
  EXPECT_EQ(ParseInt(" 2400000\n"), 2400000);
  EXPECT_EQ(ParseInt("-5"), -5);
  EXPECT_FALSE(ParseInt("12abc").has_value());
  EXPECT_FALSE(ParseInt("").has_value());
}

TEST(ThermalTest, CpuSensorNames) {
  EXPECT_TRUE(IsCpuThermalSensor("x86_pkg_temp"));
  EXPECT_TRUE(IsCpuThermalSensor("cpu-thermal"));
  EXPECT_TRUE(IsCpuThermalSensor("cpu0-thermal"));
  EXPECT_TRUE(IsCpuThermalSensor("k10temp"));
  EXPECT_TRUE(IsCpuThermalSensor("coretemp"));
  EXPECT_FALSE(IsCpuThermalSensor("acpitz"));
  EXPECT_FALSE(IsCpuThermalSensor("gpu-thermal"));
  EXPECT_FALSE(IsCpuThermalSensor("nvme"));
}

}  // namespace
}  // namespace pipette::env
