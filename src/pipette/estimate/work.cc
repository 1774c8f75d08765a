#include "pipette/estimate/work.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>

#include "pipette/workload/registry.h"

namespace pipette::estimate {

int64_t GuessChunks(int64_t corpus_bytes, int n_ctx, int chunks) {
  if (corpus_bytes <= 0 || n_ctx <= 0) return chunks;  // size unknown: what was asked
  const int64_t guess = corpus_bytes / 4 / n_ctx;
  return chunks > 0 ? std::min<int64_t>(chunks, std::max<int64_t>(guess, 1)) : guess;
}

int64_t CorpusChunks(const std::string& path, int n_ctx, int chunks) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  return GuessChunks(ec ? 0 : static_cast<int64_t>(n), n_ctx, chunks);
}

int64_t Items(int64_t limit, int64_t n_items) {
  return limit > 0 ? std::min<int64_t>(limit, n_items) : n_items;
}

std::vector<Work> PlannedWork(const config::Experiment& ex, const std::vector<plan::Cell>& cells,
                              const config::ParamRegistry& registry,
                              const std::function<bool(const plan::Cell&)>& include) {
  const std::vector<std::unique_ptr<workload::Workload>> workloads = workload::MakeWorkloads();
  std::vector<Work> work;
  std::string last_load;
  std::vector<const plan::Cell*> included;
  for (const plan::Cell& c : cells) {
    if (include && !include(c)) continue;
    included.push_back(&c);
    const std::string load = c.LoadKey(registry);
    const size_t first = work.size();
    if (load != last_load) work.push_back({c.Key(), "load", "load", 1, 1});
    last_load = load;
    for (const auto& w : workloads) w->PlanWork(ex, c, &work);
    // Another device's work learns its own rates.
    for (size_t i = first; i < work.size(); ++i) {
      work[i].kind = DeviceKind(work[i].kind, c.device.IsLocal() ? "" : c.device.name);
    }
  }
  // Interleaved (config::Experiment::interleave), every later round loads a model again where
  // the worker holds another: at each change of model along the cells, the first cell's included
  // when the round before ended on another.
  for (int round = 1; ex.interleave && round < ex.repetitions; ++round) {
    for (const plan::Cell* c : included) {
      const std::string load = c->LoadKey(registry);
      if (load != last_load) {
        work.push_back({c->Key(), "load",
                        DeviceKind("load", c->device.IsLocal() ? "" : c->device.name), 1, 1});
      }
      last_load = load;
    }
  }
  return work;
}

Estimate EstimateRun(const config::Experiment& ex, const std::vector<plan::Cell>& cells,
                     const config::ParamRegistry& registry, const History& history) {
  Estimator e(history);
  for (const Work& w : PlannedWork(ex, cells, registry)) e.Plan(w);
  return e.FromHistory();
}

}  // namespace pipette::estimate
