// What a report is made from: the runs, cells and environments read from the store and the rows
// derived from their samples (report/load.h reads them). Every figure arrives ready in
// metrics::ResultRow; report/document.h turns this into tables.
#pragma once

#include <string>
#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/metrics/items.h"
#include "pipette/store/store.h"

namespace pipette::report {

// Version of the JSON report's layout (docs/report-schema.md).
inline constexpr int kJsonSchemaVersion = 8;

struct ReportData {
  std::string store_path;
  std::vector<store::RunRecord> runs;
  // Every cell of those runs, failed and superseded ones included (superseded cells give no row).
  std::vector<store::CellRecord> cells;
  std::vector<store::EnvironmentRecord> environments;  // of those runs
  std::vector<metrics::ResultRow> rows;
  std::vector<metrics::McItemRow> mc_items;  // per-item multiple-choice results (JSON only)
  // What a reader must know to trust the figures: runs that did not finish, cells measured
  // while another Pipette was measuring. Plain sentences, built once by LoadReportData.
  std::vector<std::string> warnings;
  std::string generated_at;  // ISO 8601
  std::string pipette_version;
};

}  // namespace pipette::report
