#include "pipette/model_formats/converted_folder.h"
#include "pipette/model_formats/formats.h"

namespace pipette::model_formats {

// The same folder as ONNX's, converted on for MNN (`pipette_convert mnn`): model.mnn in place of
// model.onnx, its pipette-model.json of format "pipette-mnn/1".
model::ModelFormat Mnn() {
  return {
      .name = "mnn",
      .about = "a folder converted for MNN",
      .extensions = {".mnn"},
      .recognises = [](const std::string& path) { return ConvertedFolderFormat(path) == "mnn"; },
      .read = ReadConvertedFolder,
      .measure = MeasureConvertedFolder};
}

}  // namespace pipette::model_formats
