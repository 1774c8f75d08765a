#include "pipette/env/machine_files.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "pipette/util/shell_quote.h"

namespace pipette::env {
namespace {

TEST(ParseSnapshot, SplitsFilesAtTheirHeaders) {
  const auto files = ParseSnapshot(
      "\n==> /proc/loadavg <==\n0.5 0.4 0.3 1/80 99\n\n==> /etc/os-release <==\nPRETTY_NAME=\"X\"\n"
      "ID=x\n\n==> @uname-m <==\naarch64\n");
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files.at("/proc/loadavg"), "0.5 0.4 0.3 1/80 99\n");
  EXPECT_EQ(files.at("/etc/os-release"), "PRETTY_NAME=\"X\"\nID=x\n");
  EXPECT_EQ(files.at("@uname-m"), "aarch64");  // the last: no separator after it
  const SnapshotFiles snap(files);
  EXPECT_EQ(HostFactsFrom(snap).arch, "aarch64");
  EXPECT_EQ(ConditionsFromFiles(snap).load_avg_5, 0.4);
}

TEST(SnapshotFiles, ListsTheNamesUnderADirectory) {
  const SnapshotFiles snap({{"/sys/class/thermal/thermal_zone0/type", "cpu"},
                            {"/sys/class/thermal/thermal_zone0/temp", "45000"},
                            {"/sys/class/thermal/thermal_zone1/type", "gpu"},
                            {"/sys/class/thermalx/y", "z"}});
  EXPECT_EQ(snap.List("/sys/class/thermal"),
            (std::vector<std::string>{"thermal_zone0", "thermal_zone1"}));
  EXPECT_EQ(ConditionsFromFiles(snap).cpu_temp_c, 45.0);
}

// The script run by this machine's sh gives the fingerprint this machine reads directly: what
// a remote device's snapshot gives is the same facts from the same files.
TEST(SnapshotScript, GivesThisMachinesOwnFingerprint) {
  FILE* p = ::popen(("sh -c " + ShellQuote(SnapshotScript())).c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ASSERT_EQ(::pclose(p), 0);
  const SnapshotFiles snap(ParseSnapshot(out));
  const nlohmann::json remote = FingerprintFromFiles(snap, HostFactsFrom(snap));
  FingerprintOptions no_probe;
  no_probe.measure_bandwidth = false;
  const nlohmann::json local = CollectFingerprint(no_probe);
  for (const char* key : {"cpu_model", "cpu_vendor", "cpu_cores_logical", "cpu_cores_physical",
                          "cpu_sockets", "isa_flags", "virtualized", "cache_l1d_bytes",
                          "cache_l2_bytes", "cache_l3_bytes", "mem_total_bytes", "os", "kernel",
                          "arch", "hostname", "cpu_governor", "cpu_freq_max_khz"}) {
    EXPECT_EQ(remote[key], local[key]) << key;
  }
  EXPECT_FALSE(remote["arch"].is_null());
  EXPECT_FALSE(remote["cpu_cores_logical"].is_null());
}

}  // namespace
}  // namespace pipette::env
