#pragma once

#include "pipette/report/reporter.h"

namespace pipette::report {

// The versioned JSON document described in docs/report-schema.md.
class JsonReporter : public Reporter {
 public:
  void Write(const ReportData& data, std::ostream& out) const override;
};

}  // namespace pipette::report
