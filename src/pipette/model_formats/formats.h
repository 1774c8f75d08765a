// The model formats Pipette reads (model/format.h), one file each, and their registry. Adding a
// format is its file and one line in Registry() (registry.cc): docs/architecture.md "Adding a
// model format".
#pragma once

#include "pipette/model/format.h"

namespace pipette::model_formats {

model::ModelFormat Gguf();  // gguf.cc: a .gguf file (llama.cpp's)
model::ModelFormat Onnx();  // onnx.cc: a folder Pipette converted to ONNX
model::ModelFormat Mnn();   // mnn.cc: a folder Pipette converted for MNN

// The formats Pipette ships, built once (immutable). Only app/ calls it; below app/ the
// registry is a parameter.
const model::ModelFormats& Registry();

}  // namespace pipette::model_formats
