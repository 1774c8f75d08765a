// A JSON report (`pipette report --format json`, docs/report-schema.md) read back into result
// rows: what `pipette compare` takes as a side when the store itself is not at hand (a CI
// artifact, a report attached to an issue). Pure: the text in, the rows out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/util/result.h"

namespace pipette::report {

// The most samples a figure of a report may hold (Pipette's own hold one a repetition, a chunk or
// an item: thousands at most). More is refused as the report is read, so that the work done on a
// side (its bootstrap intervals) stays bounded.
inline constexpr size_t kMaxReportSamples = 1'000'000;

struct JsonRows {
  int64_t run_id = 0;  // the run the rows are of
  std::vector<metrics::ResultRow> rows;
  // The run's `interleaved` (runs[]); nullopt when the report does not say (before version 7).
  std::optional<bool> interleaved;
  int64_t resumes = 0;  // the run's `resumes`
};

// The rows of run `run` of the report (its latest run when not given). Not JSON, not a Pipette
// report, a schema newer than this Pipette reads, no such run, a result missing a field or
// holding more than kMaxReportSamples samples: an error naming `file` (exit 2).
Result<JsonRows> RowsFromReportJson(std::string_view text, const std::string& file,
                                    std::optional<int64_t> run);

}  // namespace pipette::report
