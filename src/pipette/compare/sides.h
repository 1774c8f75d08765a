// What a comparison's two sides are besides their rows: a side narrowed to some of its cells
// (`--baseline-only` / `--candidate-only`, so that two configurations of one run can be compared),
// and whether the two sides were measured interleaved, in rounds of one run (`run --interleave`),
// so that drift on the machine fell on both alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/util/result.h"

namespace pipette::compare {

// The rows whose cell matches every `key=value` of `filter` (comma-separated; keys: model, by
// name or SHA-256, quant, runtime, runtime_version, device or any parameter the rows have). An
// unknown key (with the nearest), a term that is not key=value, or a filter nothing matches (with
// the values there are) is an input error naming `flag`.
Result<std::vector<metrics::ResultRow>> OnlyRows(const std::vector<metrics::ResultRow>& rows,
                                                 const std::string& filter,
                                                 const std::string& flag);

struct SideSource {
  std::string path;  // the store or report, as given
  std::string file;  // its canonical path: what tells one file from another
  int64_t run_id = 0;
  // The run's RunRecord::interleave; nullopt when a JSON report older than schema 7 does not say.
  std::optional<bool> interleaved;
  int64_t resumes = 0;  // how many times `run --resume` continued the run
};

struct Interleaving {
  bool same_run = false;  // both sides are cells of one run
  // ... measured in rounds (run --interleave), and never resumed (a resume measures the cells it
  // takes up in rounds of their own)
  bool interleaved = false;
  std::string note;  // one sentence for people, with what to do when it is not
};

Interleaving DescribeInterleaving(const SideSource& baseline, const SideSource& candidate);

}  // namespace pipette::compare
