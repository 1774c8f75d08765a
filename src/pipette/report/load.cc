#include "pipette/report/load.h"

#include <algorithm>

#include "pipette/build_info.h"

namespace pipette::report {

Result<ReportData> LoadReportData(store::Store& store, const std::vector<int64_t>& run_ids) {
  ReportData data;
  data.store_path = store.path();
  data.generated_at = store::NowIso8601();
  data.pipette_version = kPipetteVersion;
  for (int64_t id : run_ids) {
    auto run = store.Run(id);
    if (!run) return run.error();
    auto env = store.Environment(run->environment_id);
    if (!env) return env.error();
    if (std::none_of(data.environments.begin(), data.environments.end(),
                     [&](const auto& e) { return e.id == env->id; })) {
      data.environments.push_back(*env);
    }
    auto cells = store.Cells(id);
    if (!cells) return cells.error();
    std::vector<metrics::CellSamples> with_samples;
    for (const auto& c : *cells) {
      auto samples = store.Samples(c.id);
      if (!samples) return samples.error();
      with_samples.push_back({c, std::move(*samples)});
      data.cells.push_back(c);
    }
    auto rows = metrics::DeriveRows(*run, *env, with_samples);
    data.rows.insert(data.rows.end(), rows.begin(), rows.end());
    data.runs.push_back(std::move(*run));
  }
  return data;
}

}  // namespace pipette::report
