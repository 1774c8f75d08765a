#include "pipette/app/run_exports.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <utility>

#include "pipette/report/document.h"
#include "pipette/report/formats.h"
#include "pipette/report/load.h"
#include "pipette/util/output_files.h"
#include "pipette/workload/registry.h"

namespace pipette::app {

Result<Exports> ExportsOf(const RunArgs& args) {
  Exports out;
  if (!args.export_md.empty()) out.push_back({"md", args.export_md, "--export-md"});
  if (!args.export_csv.empty()) out.push_back({"csv", args.export_csv, "--export-csv"});
  if (!args.export_json.empty()) out.push_back({"json", args.export_json, "--export-json"});
  for (const std::string& e : args.exports) {
    const size_t eq = e.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == e.size()) {
      return InputError(
          fmt::format("--export {}: give FORMAT=PATH, e.g. --export sql=run.sql (formats: {})", e,
                      report::FormatList()));
    }
    auto f = report::FindFormat(e.substr(0, eq));
    if (!f) return InputError(fmt::format("--export {}: {}", e, f.error().message));
    out.push_back({e.substr(0, eq), e.substr(eq + 1), "--export " + e.substr(0, eq) + "="});
  }
  return out;
}

void ExportingProgress::Export(int64_t run_id) {
  if (exports_.empty()) return;
  std::map<std::string, std::string> failed;
  auto fail_all = [&](const std::string& why) {
    for (const ExportFile& e : exports_) failed[e.path] = why;
  };
  auto data = report::LoadReportData(*store_, {run_id}, workload::Derivers(), processes_);
  if (!data) {
    fail_all(data.error().message);
  } else {
    // Built once, with what the formats render, and rendered per format (each was checked
    // before the run began).
    report::ReportParts parts = report::ReportParts::kSummary;
    for (const ExportFile& e : exports_) {
      // kSummary < kAll < kPage: each holds the one before
      if (auto f = report::FindFormat(e.format)) parts = std::max(parts, (*f)->parts);
    }
    const report::Report doc = report::BuildReport(*data, params_, workload::Figures(), parts);
    for (const ExportFile& e : exports_) {
      auto f = report::FindFormat(e.format);
      if (!f) {
        failed[e.path] = f.error().message;
        continue;
      }
      std::ostringstream out;
      (*f)->render(doc, out);
      if (auto st = WriteOutput(e.path, out.str(), *processes_); !st) {
        failed[e.path] = st.error().message;
      }
    }
  }
  for (const auto& [path, why] : failed) {
    const auto before = failed_.find(path);
    if (before == failed_.end() || before->second != why) {
      fmt::print(stderr, "warning: export not written: {}\n", why);
    }
  }
  failed_ = std::move(failed);
}

}  // namespace pipette::app
