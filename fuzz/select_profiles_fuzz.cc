// Select profiles files (select --profiles, docs/running.md): select::ParseProfiles on any text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pipette/select/profile.h"
#include "pipette/workload/registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto profiles = pipette::select::ParseProfiles(text, "fuzz.yaml", pipette::workload::Figures());
  (void)profiles;
  return 0;
}
