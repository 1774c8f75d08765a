#pragma once

#include "pipette/report/reporter.h"

namespace pipette::report {

// The console table, in the spirit of llama-bench: one line per cell and speed test.
class MarkdownReporter : public Reporter {
 public:
  void Write(const ReportData& data, std::ostream& out) const override;
};

}  // namespace pipette::report
