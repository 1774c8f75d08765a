#include "pipette/model_formats/formats.h"

namespace pipette::model_formats {

const model::ModelFormats& Registry() {
  static const model::ModelFormats formats({Gguf(), Onnx(), Mnn()});
  return formats;
}

}  // namespace pipette::model_formats
