// The report files `pipette run` writes (--export-md/-csv/-json, --export FORMAT=PATH): which,
// from the arguments, and their writing after every cell, beside the console's progress.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "pipette/app/commands.h"
#include "pipette/app/console_progress.h"
#include "pipette/env/process.h"
#include "pipette/runtime/registry.h"
#include "pipette/store/store.h"
#include "pipette/util/result.h"

namespace pipette::app {

// A report file a run writes: its format, its path, and the option that named it.
struct ExportFile {
  std::string format, path, option;
};
using Exports = std::vector<ExportFile>;

// The report files a run writes: --export-md/--export-csv/--export-json and each --export
// FORMAT=PATH, of a registered format (report/formats.h). An unknown format is bad input.
Result<Exports> ExportsOf(const RunArgs& args);

// Progress on the console, plus the export files rewritten after every cell.
class ExportingProgress : public ConsoleProgress {
 public:
  ExportingProgress(store::Store* store, Exports exports, const env::ProcessTable* processes,
                    const runtime::ParamRegistry& params)
      : ConsoleProgress(stderr),
        store_(store),
        processes_(processes),
        params_(params),
        exports_(std::move(exports)) {}
  void CellFinished(const plan::Cell& cell, int n_cells, const store::CellRecord& rec) override {
    ConsoleProgress::CellFinished(cell, n_cells, rec);
    Export(rec.run_id);
  }
  // Writes every export, each tried whatever became of the others. The failures of this time
  // are kept (failed()); a file that newly fails, or fails otherwise than before, is warned of.
  void Export(int64_t run_id);
  const Exports& exports() const { return exports_; }
  // Why an export's last writing failed, by path (none: every export was written).
  const std::map<std::string, std::string>& failed() const { return failed_; }

 private:
  store::Store* store_;
  const env::ProcessTable* processes_;
  const runtime::ParamRegistry& params_;  // how the reports show parameters
  Exports exports_;
  std::map<std::string, std::string> failed_;
};

}  // namespace pipette::app
