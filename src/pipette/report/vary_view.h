// The controlled-variable view (`pipette report --vary DIM`) as tables: one per group of
// metrics::BuildVaryTable, titled with what it holds fixed, each figure with its ratio to the
// group's first row.
#pragma once

#include <string>
#include <vector>

#include "pipette/metrics/vary.h"
#include "pipette/report/table.h"

namespace pipette::report {

struct VaryView {
  std::vector<Table> tables;       // titled "varying DIM; fixed: ..."
  std::vector<std::string> notes;  // footnotes of every table (re-quantized variants)
};

// `rows` are those the table was built from (its groups and rows point into them); `params` what
// it was built with.
VaryView BuildVaryView(const metrics::VaryTable& table, const std::vector<metrics::ResultRow>& rows,
                       const runtime::ParamRegistry& params);

}  // namespace pipette::report
