// The provenance every result measured on a converted ONNX model carries (ModelSpec::provenance,
// model_provenance in reports), made from the folder's pipette-model.json: what it was converted
// from and how, the variant, and whether its weights were quantized twice.
#pragma once

#include <nlohmann/json.hpp>

#include "pipette/model/onnx_model.h"

namespace pipette::convert {

inline constexpr const char* kConversionFormat = "pipette-conversion/1";

// {"format": "pipette-conversion/1", "label" (the report's quantization), "variant",
//  "base": {"name", "path", "sha256", "quant"} (the GGUF it came from), "requantized", "note",
//  "model": the pipette-model.json}. `base_name` is the experiment's name for the GGUF ("" when
// it names none: the GGUF file's stem).
nlohmann::json ConversionProvenance(const model::OnnxModel& m, const std::string& base_name);

}  // namespace pipette::convert
