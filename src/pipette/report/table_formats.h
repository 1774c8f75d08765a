// One table in a data format, for a command whose data is one table (compare's figures, select's
// ranking, reproduce's figures): the columns the data formats show (ShownIn), typed.
#pragma once

#include <ostream>

#include "pipette/report/table.h"

namespace pipette::report {

// A header line of the column names, then one line per row (RFC 4180), as the `csv` format
// writes values (csv.cc).
void WriteCsvTable(const Table& table, std::ostream& out);
// One JSON object per row, one per line (jsonl.cc).
void WriteJsonlTable(const Table& table, std::ostream& out);

}  // namespace pipette::report
