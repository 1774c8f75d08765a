// The importance-matrix file of the `imatrix` and `quantize` requests (docs/protocol.md):
// JSON {"format":"pipette-imatrix/1","n_chunks":..,"n_tokens":..,"entries":{name:{"count":..,
// "values":[..]}}}, where values are per-column means of squared activations.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pipette/util/result.h"

namespace pipette::llama_worker {

inline constexpr char kImatrixFormat[] = "pipette-imatrix/1";

struct ImatrixEntry {
  int64_t count = 0;          // activation rows (tokens) seen
  std::vector<float> values;  // per column: mean of the squared activations
};

struct ImatrixFile {
  int64_t n_chunks = 0;
  int64_t n_tokens = 0;
  std::map<std::string, ImatrixEntry> entries;  // by weight tensor name
};

// Writes `file` to `path` atomically (to path + ".tmp", then renamed).
Status WriteImatrixFile(const std::string& path, const ImatrixFile& file);

// Reads and checks a file written by WriteImatrixFile.
Result<ImatrixFile> ReadImatrixFile(const std::string& path);

}  // namespace pipette::llama_worker
