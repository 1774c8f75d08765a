// The generation checkers of datasets/gen/README.md ("Checkers"), applied to a model's output.
// Every checker looks at the output with surrounding ASCII whitespace trimmed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pipette/quality/datasets.h"

namespace pipette::quality {

struct CheckResult {
  bool passed = false;
  std::string detail;  // why it failed, for people ("" when it passed)
};

// Runs one checker on `output`. Two limits keep a runaway output from crashing the process:
// a regex fails on outputs over 4096 bytes (std::regex recurses per character), and JSON nested
// more than 512 levels deep counts as invalid. A checker whose spec is broken (only possible when
// built by hand, the loader refuses such specs) fails with a detail saying so.
CheckResult RunChecker(const GenChecker& checker, std::string_view output);

struct Verdict {
  bool format_ok = false;            // every format-role checker passes
  bool task_ok = false;              // every checker passes
  std::vector<CheckResult> results;  // one per checker, in the item's order
};

// Runs all of an item's checkers. A checker with an empty role gets its type's default role.
Verdict Judge(const GenItem& item, std::string_view output);

}  // namespace pipette::quality
