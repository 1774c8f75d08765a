// The kinds of device an experiment may name (`devices:`, docs/config.md "Devices"): each kind's
// keys and how a device of it is made. One line per kind in registry.cc; the experiment's parser
// checks the keys against it (config/parse_devices.cc) and the run makes the devices from it.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipette/device/device.h"
#include "pipette/util/command.h"
#include "pipette/util/result.h"

namespace pipette::device {

enum class OptionType {
  kString,
  kInt,      // a whole number (a port)
  kStrings,  // a list of strings (a command prefix, ssh options)
  kPath,     // a file on this machine, relative to the experiment file (a key file)
};

struct DeviceOption {
  std::string key;
  OptionType type = OptionType::kString;
  bool required = false;
  std::string doc;  // one line for docs/config.md
};

struct DeviceKind {
  std::string name;  // the key an entry names it by: `ssh:`, `adb:`; "local" has no keys
  std::vector<DeviceOption> options;
  // Makes the device `name` from its options as resolved (every key checked, paths absolute);
  // `runner` runs its one-shot commands and outlives the device.
  std::function<Result<std::unique_ptr<Device>>(
      const std::string& name, const nlohmann::json& options, CommandRunner& runner)>
      make;

  const DeviceOption* Find(const std::string& key) const;
  std::vector<std::string> Keys() const;
};

// Device kinds by name.
class DeviceKindRegistry {
 public:
  explicit DeviceKindRegistry(std::vector<DeviceKind> kinds) : kinds_(std::move(kinds)) {}
  const std::vector<DeviceKind>& kinds() const { return kinds_; }
  const DeviceKind* Find(const std::string& name) const;
  std::vector<std::string> Names() const;

 private:
  std::vector<DeviceKind> kinds_;
};

// The kinds Pipette ships: local, ssh, adb. Only app/ calls it; below app/ (the experiment's
// parser, config::SpecRegistry::devices()) the registry is a parameter.
const DeviceKindRegistry& DeviceKinds();

}  // namespace pipette::device
