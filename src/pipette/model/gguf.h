// GGUF header reader and validator: checks a model file before a benchmark and reads its
// metadata and tensor table without loading a runtime.
//
// Format (GGUF v2/v3, little-endian): magic "GGUF", version u32, tensor_count u64,
// metadata_kv_count u64, the key/value pairs, the tensor infos, padding to `general.alignment`
// (default 32), then the tensor data. Only the header region is read; tensor data is not.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/util/result.h"

namespace pipette::model {

// The model format's name (model_formats/gguf.cc): what runtimes that load GGUF files list.
inline constexpr const char* kGgufFormat = "gguf";

struct GgufTensor {
  std::string name;
  std::vector<uint64_t> dims;  // ggml order: dims[0] is the contiguous (row) dimension
  uint32_t type = 0;           // enum ggml_type
  std::string type_name;       // ggml's name for `type`, e.g. "f32", "q4_1", "q6_K"
  uint64_t offset = 0;         // relative to GgufFile::data_offset
  uint64_t n_bytes = 0;        // size of the tensor's data
};

struct GgufFile {
  uint32_t version = 0;
  uint64_t file_size = 0;
  uint64_t data_offset = 0;  // absolute file offset where tensor data starts
  uint32_t alignment = 32;
  // Scalars as text (integers in decimal, floats in shortest round-trip form, bools as
  // "true"/"false", strings verbatim). Arrays, string arrays included, are summarized as
  // "[array of N <type>]", e.g. "[array of 49152 string]"; their elements are not kept.
  std::map<std::string, std::string> metadata;
  std::vector<GgufTensor> tensors;  // in file order

  // Sum of the tensors' element counts (saturates at UINT64_MAX).
  uint64_t n_params() const;
  // general.architecture, e.g. "llama".
  std::optional<std::string> architecture() const;
  // general.file_type (enum llama_ftype), when present and an integer.
  std::optional<int> file_type() const;
};

// Reads and validates the header of the GGUF file at `path`: magic, version (2 or 3), counts
// and lengths that fit in the file, metadata value types, `general.alignment` (a power of two,
// stored as uint32), tensor shapes (at most 4 dims, rows a multiple of the type's block size),
// known ggml types, aligned tensor offsets, and that every tensor's data lies within the file
// (a truncated download fails here). Errors are InputError (exit code 2) naming the path and
// the problem, e.g. "models/x.gguf: not a GGUF file (magic 'PK\x03\x04'; expected 'GGUF')".
Result<GgufFile> ReadGguf(const std::string& path);
// The same checks on a file's bytes (`path` names it in messages), and on a stream of
// `file_size` bytes (a file's, opened in binary mode).
Result<GgufFile> ParseGguf(std::string_view bytes, const std::string& path);
Result<GgufFile> ReadGguf(std::istream& in, uint64_t file_size, const std::string& path);

// Name of a llama.cpp file type (enum llama_ftype, general.file_type) without the
// LLAMA_FTYPE_MOSTLY_ prefix: 0 "F32", 1 "F16", 2 "Q4_0", 3 "Q4_1", 15 "Q4_K_M", ...
// nullopt for values llama.cpp does not define (or has removed).
std::optional<std::string> FileTypeName(int file_type);

// ggml's name for a tensor type (enum ggml_type): 0 "f32", 3 "q4_1", 14 "q6_K", ...
// nullopt for unknown or removed types.
std::optional<std::string> GgmlTypeName(uint32_t type);

}  // namespace pipette::model
