// The memory figures `memory` reports (docs/protocol.md), as Linux gives them in
// /proc/<pid>/status: one pure reader shared by the workers (their own process) and the
// controller's local device (a worker's process).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pipette::protocol {

// The value in bytes of the "`key`:   1234 kB" line of a /proc/<pid>/status text; nullopt when
// the line is missing or is not a whole number of kB.
std::optional<int64_t> ProcStatusBytes(std::string_view status, std::string_view key);

}  // namespace pipette::protocol
