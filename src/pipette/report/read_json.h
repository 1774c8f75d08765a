// A JSON report (`pipette report --format json`, docs/report-schema.md) read back into result
// rows: what `pipette compare` takes as a side when the store itself is not at hand (a CI
// artifact, a report attached to an issue). Pure: the text in, the rows out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/util/result.h"

namespace pipette::report {

struct JsonRows {
  int64_t run_id = 0;  // the run the rows are of
  std::vector<metrics::ResultRow> rows;
  // The run's `interleaved` (runs[]); nullopt when the report does not say (before version 7).
  std::optional<bool> interleaved;
  int64_t resumes = 0;  // the run's `resumes`
};

// The rows of run `run` of the report (its latest run when not given). Not JSON, not a Pipette
// report, a schema newer than this Pipette reads, no such run or a result missing a field: an
// error naming `file` (exit 2).
Result<JsonRows> RowsFromReportJson(std::string_view text, const std::string& file,
                                    std::optional<int64_t> run);

}  // namespace pipette::report
