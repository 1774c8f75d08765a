// Generation datasets (datasets/gen/README.md): quality::ParseGenDataset on any bytes, every
// checker's fields included (regexes compiled).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pipette/quality/datasets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto dataset = pipette::quality::ParseGenDataset(text, "fuzz.jsonl");
  (void)dataset;
  return 0;
}
