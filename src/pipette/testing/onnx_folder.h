// A TEST FAKE of a converted ONNX model folder (model/onnx_model.h): pipette-model.json of format
// "pipette-onnx/1" with the facts of SmolLM2 135M, a small model.onnx and model.onnx.data (not
// a graph: only the controller reads this folder in unit tests), tokenizer.json.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pipette::testing {

// The pipette-model.json a converter would write for `variant` ({"name": "fp32", ...}).
nlohmann::json OnnxMeta(const nlohmann::json& variant);

// Writes the folder `dir` (created) with `meta` as its pipette-model.json.
void WriteOnnxFolder(const std::string& dir, const nlohmann::json& meta);

}  // namespace pipette::testing
