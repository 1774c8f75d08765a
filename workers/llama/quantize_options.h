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

// Reads the optional "overrides": [{"pattern": regex, "type": ggml type name}, ...] of
// `request`. Returns "" or a message.
std::string ReadOverrides(const nlohmann::json& request, std::vector<TensorOverride>* overrides);

// Counts the tensors of the GGUF file `input` (of two or more dimensions) whose name some
// pattern matches, into `n_tensors`. Returns a message when a pattern matches none (a
// mistyped pattern would otherwise go unnoticed), "" otherwise. Split models are not checked.
std::string MatchOverrides(const std::string& input, const std::vector<TensorOverride>& overrides,
                           int64_t* n_tensors);

}  // namespace pipette::llama_worker
