// What the ONNX and MNN formats share: a folder Pipette's converter wrote (model/onnx_model.h),
// read and measured the same way whichever graph file it holds.
#pragma once

#include <string>

#include "pipette/model/format.h"

namespace pipette::model_formats {

// The model format an existing `path` is in as a converted folder: "onnx" or "mnn" (a folder by
// its pipette-model.json, a graph file by its name), "" when it is none.
std::string ConvertedFolderFormat(const std::string& path);

// The facts a GGUF header gives, from pipette-model.json: the graph file, the folder's name,
// the trained context, the variant's label, the conversion's provenance and the GGUF it came
// from (its tokenizer is checked against that one's).
Result<model::ModelFileFacts> ReadConvertedFolder(const std::string& path);

// The graph file's SHA-256 is the model's; every file of the folder is hashed, and all but the
// tokenizer are sized (model.onnx.data holds the weights).
Result<model::ModelFacts> MeasureConvertedFolder(const std::string& path);

}  // namespace pipette::model_formats
