#include "pipette/metrics/history.h"

#include <map>

#include "pipette/metrics/derive.h"
#include "pipette/stats/stats.h"

namespace pipette::metrics {

estimate::History BuildHistory(
    const std::vector<std::pair<std::string, store::SampleRecord>>& keyed_samples,
    const RowDerivers& derivers) {
  std::map<std::pair<std::string, std::string>, std::vector<double>> per_request;
  std::map<std::string, std::vector<double>> per_unit;
  for (const auto& [key, s] : keyed_samples) {
    if (s.test == "load") {
      if (auto ms = LoadMs(s.raw)) {
        per_request[{key, s.test}].push_back(*ms / 1000.0);
        per_unit[estimate::DeviceKind("load", estimate::DeviceOfKey(key))].push_back(*ms / 1000.0);
      }
      continue;
    }
    // Each workload knows its samples' kind, units and seconds.
    for (const RowDeriver* w : derivers) {
      const auto m = w->Timed(s);
      if (!m) continue;
      per_request[{key, s.test}].push_back(m->seconds);
      if (m->units > 0) {
        per_unit[estimate::DeviceKind(m->kind, estimate::DeviceOfKey(key))].push_back(m->seconds /
                                                                                      m->units);
      }
      break;
    }
  }
  estimate::History h;
  for (const auto& [k, v] : per_request) h.seconds_per_request[k] = stats::Median(v);
  for (const auto& [k, v] : per_unit) h.seconds_per_unit[k] = stats::Median(v);
  return h;
}

}  // namespace pipette::metrics
