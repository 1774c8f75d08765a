// A reproduce verdict as the table model (report/table.h), built once and rendered as Markdown
// (a terminal), JSON, CSV or JSONL (its figures: report/table_formats.h). No figure is computed
// here.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "pipette/report/table.h"
#include "pipette/reproduce/reproduce.h"

namespace pipette::reproduce {

// Version of the reproduce JSON's layout (docs/report-schema.md "pipette reproduce").
inline constexpr int kReproduceSchemaVersion = 1;

// One row per figure checked: what it is, how it is checked, both values, the ratio, whether it
// reproduced and why. Typed; Markdown writes numbers to six significant digits and the outcome
// as yes, NO or cannot say.
report::Table ReproduceTable(const Verdict& v);

// `original`, `again`: the runs, as "results/pipette.db run 3".
void WriteReproduceMarkdown(const Verdict& v, const std::string& original, const std::string& again,
                            std::ostream& out);
nlohmann::ordered_json ReproduceJson(const Verdict& v, const std::string& original,
                                     const std::string& again);

}  // namespace pipette::reproduce
