// SHA-256 digests of strings and files, as lowercase hex (OpenSSL libcrypto underneath).
#pragma once

#include <string>
#include <string_view>

#include "pipette/util/result.h"

namespace pipette {

// The SHA-256 of `data` as 64 lowercase hex digits.
std::string Sha256Hex(std::string_view data);

// The SHA-256 of the file at `path` as 64 lowercase hex digits. Streams the file in 1 MiB
// chunks, so memory use does not grow with the file. Errors name the path and the system's
// reason (e.g. "models/x.gguf: cannot open: No such file or directory").
Result<std::string> Sha256File(const std::string& path);

}  // namespace pipette
