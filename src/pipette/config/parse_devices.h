// `devices:` (and `device:`) of an experiment file: pure parsing, each kind's keys checked
// against the device kinds it is given (device/registry.h; device::DeviceKinds() from app/).
// docs/config.md "Devices".
#pragma once

#include <yaml-cpp/yaml.h>

#include <vector>

#include "pipette/config/device_spec.h"
#include "pipette/config/yaml_helpers.h"
#include "pipette/device/registry.h"
#include "pipette/util/result.h"

namespace pipette::config {

// A list of entries (or one): `local`, or {name: NAME, <kind>: {key: value, ...}}. Names are
// unique and plain (letters, digits, '.', '_', '-'); `local` names only this machine. `key` is
// the key they are written under (devices, or device), which names them in problems.
Result<std::vector<WrittenDevice>> ParseDevices(const Where& w, const YAML::Node& node,
                                                const std::string& key,
                                                const device::DeviceKindRegistry& kinds);

// The entries resolved: names filled in, paths (key files) absolute relative to the experiment
// file and checked to exist.
Result<std::vector<DeviceSpec>> ResolveDevices(const Where& w,
                                               const std::vector<WrittenDevice>& written,
                                               const device::DeviceKindRegistry& kinds);

}  // namespace pipette::config
