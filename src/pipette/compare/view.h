// A comparison as the table model (report/table.h), built once and rendered per format: the
// Markdown grid (a terminal or a pull-request comment) and JSON. No figure is computed here.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "pipette/compare/compare.h"
#include "pipette/report/table.h"

namespace pipette::compare {

// Version of the comparison JSON's layout (docs/report-schema.md "pipette compare").
inline constexpr int kCompareSchemaVersion = 1;

// One row per compared figure: what it is, both medians, the ratio and its interval, the verdict
// and why, and the gate line that applies; footnotes name the ignored keys, the bootstrap's seed,
// and the unpaired and ambiguous keys.
// `for_text`: the numbers as text of four significant digits (Markdown); else as numbers (JSON).
report::Table ComparisonTable(const Comparison& c, bool for_text);

void WriteComparisonMarkdown(const Comparison& c, const std::string& baseline,
                             const std::string& candidate, std::ostream& out);
nlohmann::ordered_json ComparisonJson(const Comparison& c, const std::string& baseline,
                                      const std::string& candidate);

}  // namespace pipette::compare
