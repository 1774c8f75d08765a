#pragma once

#include <string>

#include "pipette/util/result.h"

namespace pipette {

// Writes `content` to `path` through a temporary file in the same folder and a rename, so the
// file is either the old one or the whole new one, never half-written.
Status WriteFileAtomically(const std::string& path, const std::string& content);

// The whole file as bytes, or an error naming the path.
Result<std::string> ReadFileToString(const std::string& path);

}  // namespace pipette
