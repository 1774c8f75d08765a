#include "pipette/app/predict.h"

#include <fmt/format.h>

#include <iostream>
#include <sstream>

#include "pipette/app/commands.h"
#include "pipette/env/process.h"
#include "pipette/metrics/predict.h"
#include "pipette/report/command_output.h"
#include "pipette/report/load.h"
#include "pipette/report/predict_view.h"
#include "pipette/store/store.h"
#include "pipette/util/files.h"
#include "pipette/workload/registry.h"

namespace pipette::app {

int Predict(const PredictArgs& args) {
  // A table per group: md or json, not one table's csv or jsonl.
  if (auto st = report::CheckCommandFormat("predict", args.format, /*tables=*/false); !st) {
    return Fail(st.error());
  }
  if (auto st = CheckOutputs(StoreFiles("the store", args.store), {{"-o", args.output}}); !st) {
    return Fail(st.error());
  }
  auto store = store::Store::Open(args.store, store::OpenMode::kReadOnly);
  if (!store) return Fail(store.error());
  std::vector<int64_t> ids = args.runs;
  if (ids.empty()) {
    auto latest = (*store)->LatestRunId();
    if (!latest) return Fail(latest.error());
    if (!*latest) return Fail(InputError(fmt::format("the store {} has no runs yet", args.store)));
    ids.push_back(**latest);
  }
  env::LinuxProcessTable processes;
  auto data = report::LoadReportData(**store, ids, workload::Derivers(), &processes);
  if (!data) return Fail(data.error());
  auto groups = metrics::Predict(data->rows, args.from, workload::Figures());
  if (!groups) return Fail(groups.error());
  std::ostringstream out;
  report::RenderCommandOutput(
      args.format,
      {.markdown = [&](std::ostream& o) { report::WritePredictionsMarkdown(*groups, o); },
       .json = [&] { return report::PredictionsJson(*groups); },
       .table = nullptr},
      out);
  if (args.output.empty()) {
    std::cout << out.str();
    return 0;
  }
  if (auto st = WriteOutput(args.output, out.str(), processes); !st) return Fail(st.error());
  fmt::print(stderr, "wrote {}\n", args.output);
  return 0;
}

}  // namespace pipette::app
