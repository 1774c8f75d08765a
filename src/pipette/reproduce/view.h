// A reproduce verdict as the table model (report/table.h), built once and rendered as Markdown
// (a terminal) or JSON. No figure is computed here.
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
// reproduced and why. `for_text`: numbers as text of six significant digits.
report::Table ReproduceTable(const Verdict& v, bool for_text);

// `original`, `again`: the runs, as "results/pipette.db run 3".
void WriteReproduceMarkdown(const Verdict& v, const std::string& original, const std::string& again,
                            std::ostream& out);
nlohmann::ordered_json ReproduceJson(const Verdict& v, const std::string& original,
                                     const std::string& again);

}  // namespace pipette::reproduce
