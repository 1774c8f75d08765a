#pragma once

#include <string>

#include "pipette/util/output_files.h"
#include "pipette/util/result.h"

namespace pipette {

// Writes `content` to `path` through a temporary file in the same folder and a rename, so the
// file is either the old one or the whole new one, never half-written. A symbolic link is
// followed (the file it names is replaced); a device or a pipe (/dev/stdout) is written in place.
// With `alive`, the temporary files of this name that a gone process left are removed first.
// Errors name the path and the failing call's reason; exit code 2 where the path cannot be a
// file there (a directory, a missing or read-only folder), else 1 (a full disk).
Status WriteFileAtomically(const std::string& path, const std::string& content,
                           const PidAlive& alive = {});

// The whole file as bytes, or an error naming the path ("cannot read PATH: no such file"), the
// path its context's file. Pipette's one reader of a whole file.
Result<std::string> ReadFileToString(const std::string& path);

}  // namespace pipette
