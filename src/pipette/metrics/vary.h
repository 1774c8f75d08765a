// Controlled-variable views: fix every dimension but one, and compare along that one
// (`pipette report --vary quant`). The grouping and the ratios are computed here; reporters
// only format the table.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/util/result.h"

namespace pipette::metrics {

struct VaryColumn {
  std::string name;  // "pp128 t/s", "peak RSS", "ppl", ...
  std::string unit;
};

struct VaryRow {
  std::string varied_value;                   // e.g. "Q4_1", "2"
  std::vector<std::optional<double>> values;  // one per column; nullopt: not measured
  std::vector<std::optional<double>> ratios;  // value / the first row's value
};

struct VaryGroup {
  std::string fixed;  // "model=..., runtime=..., threads=2, ..." shared by the rows
  std::vector<VaryRow> rows;
};

struct VaryTable {
  std::string dimension;
  std::vector<std::string> notes;  // footnotes (re-quantized variants)
  std::vector<VaryColumn> columns;
  std::vector<VaryGroup> groups;
};

// Dimensions one can vary: model, quant, runtime, device, or any parameter present in the rows.
std::vector<std::string> VaryDimensions(const std::vector<ResultRow>& rows);

// One group per combination of the other dimensions within one run; rows in first-seen order;
// only cells that completed. An unknown
// dimension is an input error with a suggestion.
Result<VaryTable> BuildVaryTable(const std::vector<ResultRow>& rows, const std::string& dimension);

}  // namespace pipette::metrics
