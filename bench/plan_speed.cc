// bench/plan-speed.sh's timer: reads an experiment file once, then expands its plan
// (plan::Expand) REPS times and prints the cells and the median, minimum and maximum
// milliseconds of one expansion.
// Usage: pipette_plan_speed EXPERIMENT.yaml MODELS_DIR WORKERS_DIR DATASETS_DIR [REPS]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "pipette/app/experiment_specs.h"
#include "pipette/config/experiment.h"
#include "pipette/model_formats/formats.h"
#include "pipette/plan/plan.h"
#include "pipette/runtime/registry.h"
#include "pipette/stats/stats.h"
#include "pipette/workload/registry.h"

int main(int argc, char** argv) {
  using namespace pipette;
  if (argc < 5) {
    fmt::print(stderr, "usage: {} EXPERIMENT.yaml MODELS_DIR WORKERS_DIR DATASETS_DIR [REPS]\n",
               argv[0]);
    return 2;
  }
  const int reps = argc > 5 ? std::max(1, std::atoi(argv[5])) : 15;
  const runtime::ParamRegistry registry = runtime::ParamRegistry::Default();
  config::ResolveOptions options{argv[2], argv[3], argv[4], ""};
  options.specs = &app::ExperimentSpecs();
  options.runtimes = &runtime::Registry();
  options.formats = &model_formats::Registry();
  const auto t0 = std::chrono::steady_clock::now();
  auto ex = config::LoadExperiment(argv[1], registry, options);
  const double load_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!ex) {
    fmt::print(stderr, "{}\n", ex.error().message);
    return 2;
  }
  // Wall time, and this process's CPU time (what the expansion costs on a busy machine, where the
  // wall time also counts waiting for a core).
  auto cpu_ms = [] {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
  };
  std::vector<double> ms, cpu;
  size_t n_cells = 0;
  for (int i = 0; i < reps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = cpu_ms();
    auto cells = plan::Expand(*ex, runtime::Registry(), workload::PlanNeeds());
    cpu.push_back(cpu_ms() - cpu_start);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
    if (!cells) {
      fmt::print(stderr, "{}\n", cells.error().message);
      return 2;
    }
    n_cells = cells->size();
  }
  fmt::print("cells: {}; experiment read and resolved once: {:.1f} ms\n", n_cells, load_ms);
  fmt::print("expansion, {} runs: median {:.1f} ms (min {:.1f}, max {:.1f})\n", reps,
             stats::Median(ms), *std::min_element(ms.begin(), ms.end()),
             *std::max_element(ms.begin(), ms.end()));
  fmt::print("expansion CPU time, {} runs: median {:.1f} ms (min {:.1f}, max {:.1f})\n", reps,
             stats::Median(cpu), *std::min_element(cpu.begin(), cpu.end()),
             *std::max_element(cpu.begin(), cpu.end()));
  return 0;
}
