// The `jsonl` format: one JSON object per result row, one per line, with the fields of the JSON
// report's `results` (docs/report-schema.md), for line-oriented tools (jq, pandas.read_json).
#include "pipette/report/document.h"
#include "pipette/report/table_formats.h"

namespace pipette::report {

void RenderJsonl(const Report& report, std::ostream& out) { WriteJsonlTable(report.results, out); }

void WriteJsonlTable(const Table& table, std::ostream& out) {
  for (const Row& row : table.rows) out << RowObject(table, row).dump() << "\n";
}

}  // namespace pipette::report
