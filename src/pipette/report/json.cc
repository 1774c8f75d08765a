// The `json` format: the versioned document of docs/report-schema.md, every table as an array of
// objects in its column order.
#include "pipette/report/document.h"

namespace pipette::report {

void RenderJson(const Report& report, std::ostream& out) {
  nlohmann::ordered_json doc;
  doc["schema"] = report.schema;
  doc["schema_version"] = report.schema_version;
  doc["generated_at"] = report.generated_at;
  doc["pipette_version"] = report.pipette_version;
  doc["store"] = report.store;
  doc["warnings"] = report.warnings;
  for (const Table* t :
       {&report.runs, &report.environments, &report.cells, &report.results, &report.mc_items}) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const Row& row : t->rows) rows.push_back(RowObject(*t, row));
    doc[t->name] = std::move(rows);
  }
  out << doc.dump(2) << "\n";
}

}  // namespace pipette::report
