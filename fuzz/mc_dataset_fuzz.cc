// Multiple-choice datasets (datasets/mc/README.md): quality::ParseMcDataset on any bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pipette/quality/datasets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto dataset = pipette::quality::ParseMcDataset(text, "fuzz.jsonl");
  (void)dataset;
  return 0;
}
