// A converted ONNX model (docs/internals.md, converters/onnx): a folder holding model.onnx,
// its external data (model.onnx.data), tokenizer.json and pipette-model.json (format
// "pipette-onnx/1"), which says what the GGUF header says for a GGUF: the architecture, the
// trained context, the sizes, the variant, the source and the SHA-256 of every file. The same
// folder converted for MNN (`pipette_convert mnn`) holds model.mnn instead, its
// pipette-model.json of format "pipette-mnn/1": read here too, as model format "mnn".
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "pipette/util/result.h"

namespace pipette::model {

inline constexpr const char* kOnnxModelFormat = "pipette-onnx/1";
inline constexpr const char* kOnnxMetaFile = "pipette-model.json";
inline constexpr const char* kOnnxGraphFile = "model.onnx";
inline constexpr const char* kMnnModelFormat = "pipette-mnn/1";
inline constexpr const char* kMnnGraphFile = "model.mnn";

struct OnnxModel {
  std::string dir;              // the folder, absolute
  std::string graph_path;       // dir/model.onnx (dir/model.mnn)
  std::string format = "onnx";  // the experiment's model format: "onnx" or "mnn"
  nlohmann::json meta;          // pipette-model.json as read
  std::string arch;             // "llama"
  int64_t n_ctx_train = 0;
  int64_t n_layer = 0;
  int64_t n_embd = 0;
  int64_t n_vocab = 0;
  std::string variant;       // "fp32", "int8-dynamic", ...
  std::string general_name;  // the source GGUF's general.name ("" when it had none)
  // The SHA-256 of each file of the folder, as the converter wrote them ("model.onnx", ...).
  std::map<std::string, std::string> files;
};

// `path` names the folder or its model.onnx (model.mnn). A missing folder, model.onnx or
// pipette-model.json, one that is not JSON, of another format or without a field it needs is
// bad input (exit code 2) naming the file and the problem.
Result<OnnxModel> ReadOnnxModel(const std::string& path);

// True when `path` is a folder holding pipette-model.json, or a file named *.onnx or *.mnn: a
// model an experiment gives in the onnx (mnn) format.
bool IsOnnxModelPath(const std::string& path);

// The quantization label reports show for a converted variant (its pipette-model.json
// "variant"): fp32, fp16, "W8A8 (int8 dynamic)", "W4A16 (int4 RTN, block 32)", and MNN's
// "W8A32 (int8 weights)".
std::string OnnxQuantLabel(const nlohmann::json& variant);

}  // namespace pipette::model
