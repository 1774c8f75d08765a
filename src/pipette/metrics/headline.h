// A workload's headline figures: which of its rows the console and Markdown summary shows, in
// which column and how (what `report --vary` compares is the figure's: FigureDef::vary_column).
// Each quality workload declares its own (workload::Workload::Headlines); reports take them as an
// input, so a new workload's figures reach the summary without an edit to metrics/ or report/
// (docs/architecture.md "Adding a workload"). The speed tests, memory and file size are Pipette's
// own columns.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "pipette/metrics/derive.h"

namespace pipette::metrics {

struct Headline {
  std::string column;  // the summary's column: "mc acc [95% CI]"
  int order = 0;       // its place among the quality columns (smaller first)
  // The rows of a cell the column shows; the column is there when any row of the report is one.
  std::function<bool(const ResultRow&)> shows;
  // A row that gives a cell without speed tests its summary line ("quality").
  std::function<bool(const ResultRow&)> makes_line;
  // The column's text for one cell from its rows that `shows` holds for, in report order;
  // "" when they do not make a figure.
  std::function<std::string(const std::vector<const ResultRow*>&)> text;
};

using Headlines = std::vector<Headline>;

// The last of `rows` whose metric is `metric`, or null.
const ResultRow* LastWithMetric(const std::vector<const ResultRow*>& rows,
                                const std::string& metric);

}  // namespace pipette::metrics
