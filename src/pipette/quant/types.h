// The quantization types Pipette can ask llama.cpp for, and the facts of their storage formats.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipette::quant {

// Whole-file types (llama.cpp's llama-quantize names, enum llama_ftype): F16, Q8_0, Q4_K_M...
const std::vector<std::string>& FileTypeNames();
bool IsFileType(std::string_view name);

// Per-tensor types for overrides (ggml's names, enum ggml_type): f16, q8_0, q4_0, q4_K...
const std::vector<std::string>& TensorTypeNames();
// The canonical spelling of a tensor type written in any case ("Q4_K" -> "q4_K").
std::optional<std::string> CanonicalTensorType(std::string_view name);

// Bits per weight of a tensor type's storage format (block size and bytes per block): q4_0
// stores 32 weights in 18 bytes, 4.5 bits. nullopt for a name it does not know.
std::optional<double> BitsPerWeight(std::string_view tensor_type);

// A file of this type holds the full-precision weights (F32, F16, BF16).
bool IsFullPrecision(std::string_view file_type);

}  // namespace pipette::quant
