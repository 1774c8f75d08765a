#include "pipette/model_formats/converted_folder.h"
#include "pipette/model_formats/formats.h"

namespace pipette::model_formats {

model::ModelFormat Onnx() {
  return {
      .name = "onnx",
      .about = "a converted ONNX folder",
      .extensions = {".onnx"},
      .recognises = [](const std::string& path) { return ConvertedFolderFormat(path) == "onnx"; },
      .read = ReadConvertedFolder,
      .measure = MeasureConvertedFolder};
}

}  // namespace pipette::model_formats
