// A selection as tables of the table model (report/table.h), built once and rendered as Markdown
// (a terminal), JSON, or its ranking as CSV or JSONL (report/table_formats.h). No figure is
// computed here.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "pipette/report/table.h"
#include "pipette/select/select.h"

namespace pipette::select {

// Version of the selection JSON's layout (docs/report-schema.md "pipette select").
inline constexpr int kSelectSchemaVersion = 1;

// The ranked candidates with their group scores; each candidate's scored figures; the vetoes.
// Typed, each column saying how Markdown writes it (report::TextForm).
report::Table RankedTable(const Selection& s);
report::Table FiguresTable(const Selection& s);
report::Table VetoTable(const Selection& s);

void WriteSelectionMarkdown(const Selection& s, const Profile& profile, const std::string& source,
                            std::ostream& out);
nlohmann::ordered_json SelectionJson(const Selection& s, const Profile& profile,
                                     const std::string& source);

}  // namespace pipette::select
