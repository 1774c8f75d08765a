#pragma once

#include "pipette/report/reporter.h"

namespace pipette::report {

// One line per (cell, test, metric) with every field and the raw repetition values.
class CsvReporter : public Reporter {
 public:
  void Write(const ReportData& data, std::ostream& out) const override;
};

}  // namespace pipette::report
