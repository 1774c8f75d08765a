// Gate files (compare --gate, docs/running.md): compare::ParseGate on any text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pipette/compare/gate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto lines = pipette::compare::ParseGate(text, "fuzz.gate");
  (void)lines;
  return 0;
}
