// Markdown beyond the registered `md` format: one table's grid, and the --vary view.
#pragma once

#include <ostream>

#include "pipette/report/table.h"
#include "pipette/report/vary_view.h"

namespace pipette::report {

// The header, the alignment line and the rows, padded to the widest value of each column. Every
// value is escaped (MarkdownCell): no text, a model named "a|b" or an error over lines, breaks
// a row.
void WriteMarkdownTable(const Table& table, std::ostream& out);

// `report --vary DIM`: each table under its title, then the notes.
void WriteVaryMarkdown(const VaryView& view, std::ostream& out);

}  // namespace pipette::report
