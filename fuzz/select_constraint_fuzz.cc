// One select constraint ("peak_rss <= 1.5GiB"): select::ParseConstraint on any text, and Holds on
// a constraint that parses.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pipette/select/constraint.h"
#include "pipette/workload/registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto c = pipette::select::ParseConstraint(text, "fuzz.yaml", 3, 7, &pipette::workload::Figures());
  if (c) (void)pipette::select::Holds(*c, 1.0);
  return 0;
}
