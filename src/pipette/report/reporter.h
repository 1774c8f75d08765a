// Reporters turn derived rows into text. They sit behind one interface and never compute a
// number: every figure arrives ready in metrics::ResultRow.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/metrics/items.h"
#include "pipette/metrics/vary.h"
#include "pipette/store/store.h"
#include "pipette/util/result.h"

namespace pipette::report {

// Version of the JSON report's layout (docs/report-schema.md).
inline constexpr int kJsonSchemaVersion = 5;

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

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void Write(const ReportData& data, std::ostream& out) const = 0;
};

std::vector<std::string> Formats();  // md, csv, json

// The controlled-variable view (`report --vary DIM`) as Markdown: one table per group.
void WriteVaryMarkdown(const metrics::VaryTable& table, std::ostream& out);
Result<std::unique_ptr<Reporter>> MakeReporter(std::string_view format);

}  // namespace pipette::report
