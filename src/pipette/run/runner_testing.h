// What the runner's tests start from (runner_test.cc, runner_workloads_test.cc): a store in a
// fresh temporary folder with one environment, and an experiment of two models (a: /m/a.gguf,
// b: /m/b.gguf) on one fake runtime, with `params` and then every parameter that has a default
// at its default. For tests only.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "pipette/config/experiment.h"
#include "pipette/report/document.h"
#include "pipette/report/formats.h"
#include "pipette/report/load.h"
#include "pipette/run/runner.h"
#include "pipette/runtime/params.h"
#include "pipette/select/select.h"
#include "pipette/store/store.h"
#include "pipette/testing/fake_device.h"
#include "pipette/testing/fake_worker.h"

namespace pipette::run {

struct RunnerTestBed {
  std::filesystem::path dir;  // the caller removes it
  std::unique_ptr<store::Store> store;
  int64_t env_id = 0;
  config::Experiment ex;
};

inline Status OpenTestBed(const std::string& name, const runtime::ParamRegistry& registry,
                          std::vector<std::pair<std::string, std::vector<std::string>>> params,
                          RunnerTestBed* bed) {
  namespace fs = std::filesystem;
  bed->dir = fs::temp_directory_path() / ("pipette-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(bed->dir);
  fs::create_directories(bed->dir);
  auto s = store::Store::Open((bed->dir / "r.db").string());
  if (!s) return s.error();
  bed->store = std::move(*s);
  auto env = bed->store->AddEnvironment({0, "fp", {{"cpu_model", "fake"}}});
  if (!env) return env.error();
  bed->env_id = *env;
  bed->ex.path = "ex.yaml";
  bed->ex.name = name;
  bed->ex.models = {{"a", "/m/a.gguf", "path", 1}, {"b", "/m/b.gguf", "path", 2}};
  bed->ex.runtimes = {{"llama.cpp", "/fake/worker", 3}};
  bed->ex.params = std::move(params);
  for (const auto& d : registry.defs()) {
    if (d.HasDefault()) bed->ex.params.push_back({d.name, {d.default_value}});
  }
  return {};
}

// The recipe tests' run on the fake worker: a store of its own (removed with it), the fake
// worker, and Run: `cells` of `ex` run by the runner (on a FakeDevice) with the workloads
// `workloads` makes and the runtimes given, and what `adjust` sets of the runner's dependencies
// (a model's facts, the experiment's other devices), every cell measured, then the run's data
// read back as the reports read it.
class FakeWorkerRun {
 public:
  FakeWorkerRun(const std::string& name, const runtime::ParamRegistry& registry)
      : opened_(OpenTestBed(name, registry, {}, &bed)) {}
  ~FakeWorkerRun() { std::filesystem::remove_all(bed.dir); }
  FakeWorkerRun(const FakeWorkerRun&) = delete;
  FakeWorkerRun& operator=(const FakeWorkerRun&) = delete;

  Result<report::ReportData> Run(
      const config::Experiment& ex, const std::vector<plan::Cell>& cells,
      const runtime::ParamRegistry& registry, const runtime::RuntimeRegistry& runtimes,
      std::function<std::vector<std::unique_ptr<workload::Workload>>()> workloads,
      const metrics::RowDerivers& derivers,
      const std::function<void(RunnerDeps&)>& adjust = nullptr) {
    if (!opened_) return opened_.error();
    testing::FakeDevice device(&fake);
    RunnerDeps deps;
    deps.workloads = std::move(workloads);
    deps.derivers = &derivers;
    deps.runtimes = &runtimes;
    deps.device = &device;
    deps.store = bed.store.get();
    if (adjust) adjust(deps);
    auto summary = RunExperiment(ex, cells, registry, bed.env_id, deps);
    if (!summary) return summary.error();
    if (summary->cells_ok != int(cells.size())) {
      return RuntimeError(summary->failures.empty() ? "a cell was not measured"
                                                    : summary->failures[0].message);
    }
    run_id = summary->run_id;
    return report::LoadReportData(*bed.store, {run_id}, derivers);
  }

  RunnerTestBed bed;
  testing::FakeWorker fake;
  int64_t run_id = 0;

 private:
  Status opened_;
};

// The recipe tests' look at what a user sees of a run: the HTML page of `data`.
inline std::string PageOf(const report::ReportData& data, const runtime::ParamRegistry& registry,
                          const metrics::FigureCatalogue& figures) {
  const report::Report r = report::BuildReport(data, registry, figures, report::ReportParts::kPage);
  std::ostringstream page;
  (*report::FindFormat("html"))->render(r, page);
  return page.str();
}

// ... and the candidates `pipette select` ranks of it (a profile that weighs speed alone): their
// names and devices, "NAME @ DEVICE".
inline std::vector<std::string> CandidatesOf(const report::ReportData& data,
                                             const metrics::FigureCatalogue& figures) {
  select::Profile p;
  p.name = "speed";
  p.weights = {.quality = 0, .efficiency = 1, .robustness = 0, .engineering = 0};
  std::vector<std::string> out;
  auto s = select::Select(figures, data.rows, p);
  if (!s) return {"(select refused: " + s.error().message + ")"};
  for (const select::Candidate& c : s->ranked) out.push_back(c.name + " @ " + c.device);
  return out;
}

}  // namespace pipette::run
