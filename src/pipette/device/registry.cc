#include "pipette/device/registry.h"

#include <fmt/format.h>

#include "pipette/device/adb_device.h"
#include "pipette/device/local_device.h"
#include "pipette/device/ssh_device.h"

namespace pipette::device {
namespace {

using nlohmann::json;

std::vector<std::string> Strings(const json& options, const std::string& key) {
  std::vector<std::string> out;
  for (const json& s : options.value(key, json::array())) out.push_back(s.get<std::string>());
  return out;
}

Result<std::unique_ptr<Device>> MakeLocal(const std::string&, const json&, CommandRunner&) {
  return std::unique_ptr<Device>(new LocalDevice());
}

Result<std::unique_ptr<Device>> MakeSsh(const std::string& name, const json& o,
                                        CommandRunner& runner) {
  SshTarget t;
  t.name = name;
  t.host = o.value("host", "");
  t.port = o.value("port", 22);
  t.user = o.value("user", "");
  t.key_file = o.value("key", "");
  t.workdir = o.value("workdir", t.workdir);
  t.arch = o.value("arch", "");
  t.emulator = Strings(o, "emulator");
  t.ssh_options = Strings(o, "ssh_options");
  t.alive_interval_s = o.value("alive_interval", t.alive_interval_s);
  t.alive_count_max = o.value("alive_count_max", t.alive_count_max);
  return std::unique_ptr<Device>(new SshDevice(std::move(t), runner));
}

Result<std::unique_ptr<Device>> MakeAdb(const std::string& name, const json& o,
                                        CommandRunner& runner) {
  AdbTarget t;
  t.name = name;
  t.serial = o.value("serial", "");
  t.workdir = o.value("workdir", t.workdir);
  t.arch = o.value("arch", "");
  t.adb_program = o.value("adb", t.adb_program);
  return std::unique_ptr<Device>(new AdbDevice(std::move(t), runner));
}

const std::vector<DeviceOption> kSshOptions = {
    {"host", OptionType::kString, true, "the board's name or address"},
    {"port", OptionType::kInt, false, "sshd's port (default 22)"},
    {"user", OptionType::kString, false, "the user to log in as (default: ssh's)"},
    {"key", OptionType::kPath, false, "the private key file (default: ssh's identities)"},
    {"workdir", OptionType::kString, false,
     "where staged files go on the board (default .cache/pipette under the user's home)"},
    {"arch", OptionType::kString, false,
     "the instruction set its workers run (default: `uname -m` on the board; required with "
     "emulator)"},
    {"emulator", OptionType::kStrings, false,
     "a command the worker runs under on the board ([qemu-aarch64]): results are labelled "
     "emulated"},
    {"ssh_options", OptionType::kStrings, false, "more ssh -o options (UserKnownHostsFile=...)"},
    {"alive_interval", OptionType::kInt, false, "seconds between ssh keep-alives (default 5)"},
    {"alive_count_max", OptionType::kInt, false,
     "keep-alives unanswered before the link counts as dropped (default 3)"},
};

const std::vector<DeviceOption> kAdbOptions = {
    {"serial", OptionType::kString, false,
     "the device as `adb devices` lists it (default: the "
     "only one attached)"},
    {"workdir", OptionType::kString, false,
     "where staged files go (default /data/local/tmp/pipette)"},
    {"arch", OptionType::kString, false, "the instruction set (default: `uname -m` there)"},
    {"adb", OptionType::kString, false, "the adb program (default: adb on PATH)"},
};

}  // namespace

const DeviceOption* DeviceKind::Find(const std::string& key) const {
  for (const DeviceOption& o : options) {
    if (o.key == key) return &o;
  }
  return nullptr;
}

std::vector<std::string> DeviceKind::Keys() const {
  std::vector<std::string> keys;
  for (const DeviceOption& o : options) keys.push_back(o.key);
  return keys;
}

const DeviceKindRegistry& DeviceKinds() {
  // One line per kind of device.
  static const DeviceKindRegistry kinds({
      {"local", {}, MakeLocal},
      {"ssh", kSshOptions, MakeSsh},
      {"adb", kAdbOptions, MakeAdb},
  });
  return kinds;
}

const DeviceKind* DeviceKindRegistry::Find(const std::string& name) const {
  for (const DeviceKind& k : kinds_) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

std::vector<std::string> DeviceKindRegistry::Names() const {
  std::vector<std::string> names;
  for (const DeviceKind& k : kinds_) names.push_back(k.name);
  return names;
}

}  // namespace pipette::device
