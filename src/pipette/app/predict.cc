#include "pipette/app/predict.h"

#include <fmt/format.h>

#include <iostream>
#include <sstream>

#include "pipette/app/commands.h"
#include "pipette/env/process.h"
#include "pipette/metrics/predict.h"
#include "pipette/report/load.h"
#include "pipette/report/predict_view.h"
#include "pipette/store/store.h"
#include "pipette/util/files.h"
#include "pipette/workload/registry.h"

namespace pipette::app {

int Predict(const PredictArgs& args) {
  if (args.format != "md" && args.format != "json") {
    return Fail(InputError(fmt::format("--format {}: predict writes md or json", args.format)));
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
  if (args.format == "json") {
    out << report::PredictionsJson(*groups).dump(2) << "\n";
  } else {
    report::WritePredictionsMarkdown(*groups, out);
  }
  if (args.output.empty()) {
    std::cout << out.str();
    return 0;
  }
  if (auto st = WriteOutput(args.output, out.str(), processes); !st) return Fail(st.error());
  fmt::print(stderr, "wrote {}\n", args.output);
  return 0;
}

}  // namespace pipette::app
