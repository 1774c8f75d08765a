// JSON reports as `compare` reads them (report --format json, docs/report-schema.md):
// report::RowsFromReportJson on any text, for the latest run and for run 1.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "pipette/report/read_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto latest = pipette::report::RowsFromReportJson(text, "fuzz.json", std::nullopt);
  if (latest) (void)pipette::report::RowsFromReportJson(text, "fuzz.json", int64_t{1});
  return 0;
}
