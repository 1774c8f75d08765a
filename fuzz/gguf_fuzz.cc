// GGUF model files (model/gguf.h): model::ParseGguf on any bytes, as ReadGguf reads a file of
// that size; a file that parses is asked its facts.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pipette/model/gguf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto file = pipette::model::ParseGguf(bytes, "fuzz.gguf");
  if (file) {
    (void)file->n_params();
    (void)file->architecture();
    if (auto t = file->file_type()) (void)pipette::model::FileTypeName(*t);
  }
  return 0;
}
