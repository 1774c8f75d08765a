// The one protocol version (docs/protocol.md "Versioning"): what a worker's `hello` says and the
// controller requires. Adding ops or optional fields keeps it; removing or renaming a field or
// changing a meaning increments it.
#pragma once

namespace pipette::protocol {

inline constexpr int kProtocolVersion = 1;

}  // namespace pipette::protocol
