// ggml's tensor types (enum ggml_type) and their block layouts: Pipette's one table of them, read
// by the GGUF reader (a tensor's bytes), quantize (bits per weight) and the roofline (a KV cache
// type's bytes per element).
#pragma once

#include <cstdint>
#include <string_view>

namespace pipette::model {

struct GgmlType {
  const char* name;     // ggml's name ("q4_0", "q6_K"); nullptr: unused or removed from GGUF
  uint32_t block_size;  // elements per block
  uint32_t type_size;   // bytes per block
  double BytesPerElement() const { return double(type_size) / double(block_size); }
};

// The type of enum value `id`, or nullptr for an unknown or removed one.
const GgmlType* FindGgmlType(uint32_t id);
// The type named exactly `name` ("q4_K", not "Q4_K"), or nullptr.
const GgmlType* FindGgmlType(std::string_view name);

}  // namespace pipette::model
