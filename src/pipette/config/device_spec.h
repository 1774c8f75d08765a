// A device entry of an experiment file (`devices:`, docs/config.md "Devices"): `local`, or a
// named device of a kind the device registry knows (device/registry.h) with that kind's keys.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "pipette/util/place.h"

namespace pipette::config {

// As written, with the places (util/place.h) the errors resolving it name.
struct WrittenDevice {
  std::optional<std::string> name{};  // `name:`; none: the kind's default (local, the host)
  std::string kind{};                 // "local", "ssh", "adb"
  // The kind's keys as written: strings, whole numbers, lists of strings.
  nlohmann::json options = nlohmann::json::object();
  std::map<std::string, Place> option_pos{};  // key -> its value's place
  // `tier:` as parsed: {cpus: [..], cpu_quota: x, memory_bytes: n} (env::Tier); null: none.
  nlohmann::json tier{};
  Place pos{};  // the entry
};

// Resolved: what the run makes the device from.
struct DeviceSpec {
  std::string name = "local";  // unique in the experiment; "local" is this machine
  std::string kind = "local";
  // The kind's keys, paths made absolute (device::DeviceKind::make reads them).
  nlohmann::json options = nlohmann::json::object();
  // An emulated tier's limits (env::Tier's JSON; docs/config.md "Emulated tiers"); null: none.
  nlohmann::json tier{};
  int line = 0;  // where the file named it; 0: not written (the default local device)

  // This machine as it is: the plain `local` device (a tier of it is a device of its own, opened
  // like any other).
  bool IsLocal() const { return kind == "local" && tier.is_null(); }
  bool Tiered() const { return !tier.is_null(); }
  // Runs its workers under an emulator (`emulator:`): its figures describe the emulator.
  bool Emulated() const { return options.contains("emulator"); }
  // Where the run's records and messages say it is: "local", "ssh root@10.0.0.2:22".
  std::string Address() const;
  nlohmann::json ToJson() const;
};

}  // namespace pipette::config
