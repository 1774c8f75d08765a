#include "pipette/config/parse_devices.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "pipette/config/canonical.h"
#include "pipette/config/parse_testing.h"

namespace pipette::config {
namespace {

using testing::ErrorOf;
using testing::Parse;

const std::string kHead = "models: [m.gguf]\ntests: [pp16]\n";

TEST(ParseDevices, LocalAndNamedDevicesOfEachKind) {
  auto ex = Parse(kHead +
                  "devices:\n"
                  "  - local\n"
                  "  - name: board\n"
                  "    ssh: {host: 10.0.0.2, port: 2222, user: root, key: id_board,\n"
                  "          arch: aarch64, emulator: [qemu-aarch64], ssh_options: "
                  "[UserKnownHostsFile=/dev/null]}\n"
                  "  - {name: phone, adb: {serial: R58M, workdir: /data/local/tmp/p}}\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  ASSERT_EQ(ex->devices.size(), 3u);
  EXPECT_EQ(ex->devices[0].kind, "local");
  EXPECT_FALSE(ex->devices[0].name.has_value());
  EXPECT_EQ(ex->devices[1].kind, "ssh");
  EXPECT_EQ(ex->devices[1].name, "board");
  EXPECT_EQ(ex->devices[1].options["port"], 2222);
  EXPECT_EQ(ex->devices[1].options["emulator"], nlohmann::json::array({"qemu-aarch64"}));
  EXPECT_EQ(ex->devices[1].pos.line, 5);
  EXPECT_EQ(ex->devices[2].options["serial"], "R58M");
  // The canonical form holds the devices as written: a board added is another experiment.
  const auto canonical = CanonicalForm(*ex);
  ASSERT_TRUE(canonical.contains("devices"));
  EXPECT_EQ(canonical["devices"][1]["options"]["host"], "10.0.0.2");
  auto without = Parse(kHead);
  EXPECT_NE(ConfigHash(*ex), ConfigHash(*without));
}

TEST(ParseDevices, DeviceLocalAsBeforeHasTheSameHash) {
  auto old = Parse(kHead + "device: local\n");
  ASSERT_TRUE(old.ok()) << old.error().message;
  EXPECT_TRUE(old->devices.empty());
  EXPECT_EQ(old->device, "local");
  auto one = Parse(kHead + "device: {name: b, ssh: {host: h}}\n");
  ASSERT_TRUE(one.ok()) << one.error().message;
  ASSERT_EQ(one->devices.size(), 1u);
  EXPECT_EQ(one->devices[0].name, "b");
}

TEST(ParseDevices, BadEntriesSayWhereAndWhat) {
  EXPECT_EQ(ErrorOf(kHead + "devices: [{name: b, ssh: {hots: h}}]\n"),
            "ex.yaml:3:27: unknown key 'hots' in ssh (did you mean 'host'?)");
  EXPECT_EQ(ErrorOf(kHead + "devices: [{name: b, ssh: {port: 22}}]\n"),
            "ex.yaml:3:26: ssh: needs 'host:' (the board's name or address)");
  EXPECT_EQ(ErrorOf(kHead + "devices: [{name: b, shh: {host: h}}]\n"),
            "ex.yaml:3:21: unknown key 'shh' in a device (did you mean 'ssh'?)");
  EXPECT_EQ(ErrorOf(kHead + "devices: [{ssh: {host: h}}]\n"),
            "ex.yaml:3:11: a ssh device needs name: (how --only and the tables call it)");
  EXPECT_EQ(ErrorOf(kHead + "devices: [{name: local, ssh: {host: h}}]\n"),
            "ex.yaml:3:11: `local` names this machine: give the device another name");
  EXPECT_EQ(ErrorOf(kHead + "devices: [{name: 'a b', ssh: {host: h}}]\n"),
            "ex.yaml:3:18: device name 'a b': use letters, digits, '.', '_' and '-' only (it "
            "names the device in --only and tables)");
  EXPECT_EQ(ErrorOf(kHead + "devices: [{name: b, ssh: {host: h}}, {name: b, adb: {}}]\n"),
            "ex.yaml:3:38: device 'b' is listed twice (first at line 3)");
  EXPECT_EQ(ErrorOf(kHead + "devices: [{name: b, ssh: {host: h, emulator: qemu-aarch64}}]\n"),
            "ex.yaml:3:26: ssh: emulator: needs arch: too (the instruction set the worker runs "
            "under the emulator: the board's own shell says another)");
  EXPECT_EQ(ErrorOf(kHead + "devices: [{name: b, ssh: {host: h, port: 70000}}]\n"),
            "ex.yaml:3:42: field 'devices[0].ssh.port' must be between 1 and 65535, got 70000");
  EXPECT_EQ(ErrorOf(kHead + "devices: [board]\n"),
            "ex.yaml:3:11: device 'board' is not known: write `local`, or a named device such as "
            "{name: board, ssh: {host: 10.0.0.2}} (kinds: local, ssh, adb)");
  EXPECT_EQ(ErrorOf(kHead + "devices: []\n"),
            "ex.yaml:3:10: devices: needs at least one device (`local` is this machine)");
  EXPECT_EQ(ErrorOf(kHead + "device: local\ndevices: [local]\n"),
            "ex.yaml:4:1: give either 'device:' or 'devices:', not both");
}

TEST(ParseDevices, ATierIsALocalDeviceOfItsOwnName) {
  auto ex = Parse(kHead +
                  "devices:\n"
                  "  - local\n"
                  "  - name: low\n"
                  "    local:\n"
                  "    tier: {cpus: [0], cpu_quota: 0.5, memory: 512MiB}\n"
                  "  - {name: board-low, ssh: {host: b}, tier: {memory: 1GB}}\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  ASSERT_EQ(ex->devices.size(), 3u);
  EXPECT_EQ(ex->devices[1].kind, "local");
  EXPECT_EQ(ex->devices[1].tier,
            nlohmann::json::parse(R"({"cpus":[0],"cpu_quota":0.5,"memory_bytes":536870912})"));
  EXPECT_EQ(ex->devices[2].tier, nlohmann::json::parse(R"({"memory_bytes":1000000000})"));
  // Another tier is another experiment.
  auto other = Parse(kHead +
                     "devices:\n"
                     "  - local\n"
                     "  - name: low\n"
                     "    local:\n"
                     "    tier: {cpus: [0], cpu_quota: 0.5, memory: 256MiB}\n"
                     "  - {name: board-low, ssh: {host: b}, tier: {memory: 1GB}}\n");
  ASSERT_TRUE(other.ok()) << other.error().message;
  EXPECT_NE(ConfigHash(*ex), ConfigHash(*other));
  auto resolved = ResolveDevices(Where("ex.yaml"), ex->devices, device::DeviceKinds());
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  EXPECT_TRUE((*resolved)[0].IsLocal());
  EXPECT_FALSE((*resolved)[1].IsLocal());  // opened as a device of its own, with its own facts
  EXPECT_TRUE((*resolved)[1].Tiered());
  EXPECT_EQ((*resolved)[1].ToJson()["tier"]["cpu_quota"], 0.5);
}

TEST(ParseDevices, BadTiersSayWhereAndWhat) {
  EXPECT_EQ(ErrorOf(kHead + "devices: [{name: low, local: , tier: {memroy: 1GiB}}]\n"),
            "ex.yaml:3:39: unknown key 'memroy' in tier (did you mean 'memory'?)");
  EXPECT_EQ(ErrorOf(kHead + "devices: [{name: low, local: , tier: {memory: 1 parsec}}]\n"),
            "ex.yaml:3:47: tier.memory: '1 parsec' is not a size (write 512MiB, 1.5GiB, 800MB or "
            "a number of bytes)");
  EXPECT_EQ(ErrorOf(kHead + "devices: [{name: low, local: , tier: {cpus: [0, 0]}}]\n"),
            "ex.yaml:3:49: tier.cpus: CPU 0 is listed twice");
  EXPECT_EQ(ErrorOf(kHead + "devices: [{name: low, local: , tier: {cpu_quota: 0}}]\n"),
            "ex.yaml:3:50: field 'devices[0].tier.cpu_quota' (CPUs' worth of time per period) must "
            "be between 0.01 "
            "and 4096, got 0");
  EXPECT_EQ(ErrorOf(kHead + "devices: [{name: low, local: , tier: {}}]\n"),
            "ex.yaml:3:38: tier: must be a mapping of one or more of cpus: [CPU numbers], "
            "cpu_quota: CPUs' worth of time (0.5), memory: a size (512MiB)");
  EXPECT_EQ(ErrorOf(kHead + "devices: [{local: , tier: {memory: 1GiB}}]\n"),
            "ex.yaml:3:11: a device with a tier needs a name of its own (name: low): its results "
            "are another device's");
}

TEST(ResolveDevices, KeyFilesAreFoundBesideTheExperimentFile) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("pipette-resolve-devices-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  struct Cleanup {
    fs::path dir;
    ~Cleanup() { fs::remove_all(dir); }
  } cleanup{dir};  // passed or failed
  std::ofstream(dir / "id_board") << "key";
  const std::string path = (dir / "ex.yaml").string();
  auto written =
      ParseExperiment(kHead + "devices: [{name: b, ssh: {host: h, key: id_board}}]\n", path,
                      runtime::ParamRegistry::Default(), testing::TestsOnly(), runtime::Registry());
  ASSERT_TRUE(written.ok()) << written.error().message;
  auto devices = ResolveDevices(Where(path), written->devices, device::DeviceKinds());
  ASSERT_TRUE(devices.ok()) << devices.error().message;
  EXPECT_EQ((*devices)[0].options["key"], (dir / "id_board").string());
  EXPECT_EQ((*devices)[0].Address(), "ssh h:22");
  auto missing =
      ParseExperiment(kHead + "devices: [{name: b, ssh: {host: h, key: nope}}]\n", path,
                      runtime::ParamRegistry::Default(), testing::TestsOnly(), runtime::Registry());
  ASSERT_TRUE(missing.ok());
  auto bad = ResolveDevices(Where(path), missing->devices, device::DeviceKinds());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            fmt::format("{}:3:41: ssh.key: no such file: {}", path, (dir / "nope").string()));
  EXPECT_EQ(bad.error().exit_code, 2);
}

}  // namespace
}  // namespace pipette::config
