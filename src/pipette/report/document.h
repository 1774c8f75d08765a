// The report as tables, built once from ReportData; every output format renders this (see
// report/formats.h) and none computes anything.
#pragma once

#include <string>
#include <vector>

#include "pipette/metrics/figures.h"
#include "pipette/metrics/headline.h"
#include "pipette/report/data.h"
#include "pipette/report/page.h"
#include "pipette/report/table.h"
#include "pipette/runtime/params.h"

namespace pipette::report {

// A cell that did not complete: the console table lists it under the figures.
struct CellNote {
  int cell = 0;        // 1-based position in its run
  std::string status;  // failed | running | interrupted | abandoned
  std::string reason;  // the stored error, or "(no reason recorded)"
  std::string key;     // what the cell measured (model=...,threads=...)
};

struct Report {
  std::string schema = "pipette.report";
  int schema_version = kJsonSchemaVersion;
  std::string generated_at;
  std::string pipette_version;
  std::string store;
  std::vector<std::string> warnings;
  // The data, one row per record, with the JSON report's fields (docs/report-schema.md).
  Table runs, environments, cells, results, mc_items;
  // The console table: one line per cell and speed test, with the quality figures beside.
  Table summary;
  // The curves under it (report/curves.h): context growth, sustained windows; only those with
  // rows.
  std::vector<Table> curves;
  std::vector<CellNote> incomplete;  // in cell order; superseded and ok cells left out
  // The HTML page's sections after the summary (report/page.h); built for kPage only.
  std::vector<PageSection> page;
};

// What of a Report a format renders, so that BuildReport builds only that: the console table with
// its notes and warnings (md), every table, or every table and the HTML page's sections (html).
enum class ReportParts { kSummary, kAll, kPage };

// `params`: the parameters the rows' runtimes take (how the console table names and shows them);
// `figures`: what each figure means, with the workloads' summary columns (workload::Figures()).
Report BuildReport(const ReportData& data, const runtime::ParamRegistry& params,
                   const metrics::FigureCatalogue& figures, ReportParts parts = ReportParts::kAll);

// The tables, each from its records (BuildReport calls them all).
Table RunsTable(const std::vector<store::RunRecord>& runs);
Table EnvironmentsTable(const std::vector<store::EnvironmentRecord>& environments);
Table CellsTable(const std::vector<store::CellRecord>& cells);
Table ResultsTable(const std::vector<metrics::ResultRow>& rows);
Table McItemsTable(const std::vector<metrics::McItemRow>& items);

}  // namespace pipette::report
