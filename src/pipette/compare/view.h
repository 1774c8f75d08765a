// A comparison as the table model (report/table.h), built once and rendered as Markdown (a
// terminal or a pull-request comment), JSON, or its figures as CSV or JSONL. No figure
// is computed here.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "pipette/compare/compare.h"
#include "pipette/report/table.h"

namespace pipette::compare {

// Version of the comparison JSON's layout (docs/report-schema.md "pipette compare").
inline constexpr int kCompareSchemaVersion = 4;

// One row per compared figure: what it is, both sides' values, the ratio and the difference, the
// interval of the change, the sample counts, the verdict and why, and the gate line that applies;
// footnotes name the shared keys, the ignored keys, the bootstrap's seed, and the unpaired and
// uncompared figures.
// Built once: the columns people read are those Markdown shows (numbers to four significant
// digits, the change, its interval and the counts each as one text), every column typed is what
// JSON, CSV and JSONL show (report::ShownIn). Three names are both a Markdown and a data column
// (verdict, gate, why: the Markdown's say more); Table::Find finds the Markdown one.
report::Table ComparisonTable(const Comparison& c);

void WriteComparisonMarkdown(const Comparison& c, const std::string& baseline,
                             const std::string& candidate, std::ostream& out);
nlohmann::ordered_json ComparisonJson(const Comparison& c, const std::string& baseline,
                                      const std::string& candidate);

}  // namespace pipette::compare
