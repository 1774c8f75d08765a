// The choices of the `quantize` request (docs/protocol.md): file types by their llama-quantize
// names, and per-tensor type overrides (regex pattern -> ggml type), checked before llama.cpp
// sees them.
#pragma once

#include <ggml.h>
#include <llama.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipette/protocol/quant_ops.h"
#include "pipette/util/result.h"

namespace pipette::llama_worker {

struct FileType {
  const char* name;  // as llama-quantize spells it
  llama_ftype ftype;
};

// The file type of that name (case-insensitive), or nullptr.
const FileType* FindFileType(const std::string& name);
// "F32, F16, ...": every name FindFileType knows.
std::string FileTypeNames();
// F32, F16 or BF16: llama.cpp applies no overrides to these.
bool IsFloatFileType(llama_ftype ftype);

struct TensorOverride {
  std::string pattern;  // ECMAScript regex, searched for in tensor names
  ggml_type type;
};

// Checks the `overrides` of a quantize request ({pattern: regex, type: ggml type name}, ...):
// each pattern a valid regular expression, each type a tensor type ggml can quantize to, and no
// override that would make llama.cpp abort.
Result<std::vector<TensorOverride>> ResolveOverrides(
    const std::vector<protocol::TensorTypeOverride>& overrides);

// The number of tensors of the GGUF file `input` (of two or more dimensions) whose name some
// pattern matches. Fails when a pattern matches none (a mistyped pattern would otherwise go
// unnoticed). Split models are not checked (0).
Result<int64_t> MatchOverrides(const std::string& input,
                               const std::vector<TensorOverride>& overrides);

}  // namespace pipette::llama_worker
