// The recipe of docs/architecture.md "Adding a runtime": a made-up runtime, `toyrt` (a test
// fixture, in this test's runtime registry only: a worker program of its own that loads GGUF
// files, with one parameter of its own, `lanes`), is named and resolved by an experiment, paired
// with the models it loads by the plan, run by the runner against the fake worker (which answers
// for any program), and its rows carry it into the pairing key compare uses and the summary, with
// nothing outside this file written for it. (Its worker and build line are the recipe's other
// half; the conformance suite tests a real worker.)
#include <gtest/gtest.h>

#include <fstream>

#include "pipette/compare/compare.h"
#include "pipette/config/experiment_testing.h"
#include "pipette/metrics/cell_figures.h"
#include "pipette/plan/plan.h"
#include "pipette/protocol/ops.h"
#include "pipette/report/document.h"
#include "pipette/report/load.h"
#include "pipette/run/runner.h"
#include "pipette/run/runner_testing.h"
#include "pipette/runtime/registry.h"
#include "pipette/testing/fake_device.h"
#include "pipette/testing/fake_worker.h"
#include "pipette/workload/registry.h"
#include "pipette/workload/speed/speed.h"
#include "pipette/workload/speed/speed_testing.h"

namespace pipette::runtime {
namespace {

// The made-up runtime: its whole entry.
Runtime Toyrt() {
  return {.name = "toyrt",
          .reach = WorkerProgram{"pipette-worker-toyrt"},
          .model_formats = {"gguf"},
          .params = ParamRegistry({{.name = "lanes",
                                    .help = "the toy runtime's lanes",
                                    .kind = ParamKind::kInt,
                                    .scope = ParamScope::kLoad,
                                    .min = 1,
                                    .max = 4,
                                    .column = "lanes",
                                    .request_fields = {"lanes"},
                                    .order = 910}})};
}

// The runtimes Pipette ships, and toyrt.
const RuntimeRegistry& Runtimes() {
  static const RuntimeRegistry runtimes = [] {
    std::vector<Runtime> all = Registry().runtimes();
    all.push_back(Toyrt());
    return RuntimeRegistry(std::move(all));
  }();
  return runtimes;
}

class RuntimeRecipe : public config::ExperimentTest {
 protected:
  void SetUp() override {
    ExperimentTest::SetUp();
    std::ofstream(dir_ / "pipette-worker-toyrt") << "";  // its worker program, built beside
    opts_.runtimes = &Runtimes();
    registry_ = Runtimes().Params();
  }
  const std::string text_ =
      "models: [smollm2-135m-instruct-q4_1]\nruntimes: [toyrt]\ntests: [tg4]\n"
      "params:\n  lanes: [1, 2]\n";
};

TEST_F(RuntimeRecipe, AMadeUpRuntimeIsNamedResolvedAndPaired) {
  auto ex = Parse(text_);
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  ASSERT_EQ(ex->runtimes.size(), 1u);
  EXPECT_EQ(ex->runtimes[0].name, "toyrt");
  EXPECT_EQ(ex->runtimes[0].worker, dir_ / "pipette-worker-toyrt");
  auto llama = Parse("models: [smollm2-135m-instruct-q4_1]\nruntimes: [llama.cpp]\ntests: [tg4]\n");
  ASSERT_TRUE(llama.ok()) << llama.error().message;
  EXPECT_NE(ex->Hash(), llama->Hash());
  auto cells = plan::Expand(*ex, Runtimes(), workload::PlanNeeds());
  ASSERT_TRUE(cells.ok()) << cells.error().message;
  ASSERT_EQ(cells->size(), 2u);  // its own parameter swept
  EXPECT_EQ(cells->at(0).runtime.name, "toyrt");
  // Its parameter is its own: another runtime's cells do not take it.
  EXPECT_NE(ErrorOf("models: [smollm2-135m-instruct-q4_1]\nruntimes: [llama.cpp]\n"
                    "tests: [tg4]\nparams:\n  lanes: [1]\n")
                .find("lanes"),
            std::string::npos);
  // Pipette's own registry has no toyrt.
  registry_ = ParamRegistry::Default();
  opts_.runtimes = &Registry();
  EXPECT_NE(ErrorOf("models: [smollm2-135m-instruct-q4_1]\nruntimes: [toyrt]\ntests: [tg4]\n")
                .find("unknown runtime 'toyrt'"),
            std::string::npos);
}

TEST_F(RuntimeRecipe, AMadeUpRuntimeRunsAndItsRowsSayIt) {
  auto ex = Parse(text_);
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  auto cells = plan::Expand(*ex, Runtimes(), workload::PlanNeeds());
  ASSERT_TRUE(cells.ok()) << cells.error().message;

  run::FakeWorkerRun run("runtime-recipe", registry_);
  const std::unique_ptr<workload::Workload> speed = workload::NewSpeed();
  const metrics::RowDerivers derivers = {speed.get(), &metrics::CellDeriver()};
  auto data = run.Run(*ex, *cells, registry_, Runtimes(), workload::SpeedAlone, derivers);
  ASSERT_TRUE(data.ok()) << data.error().message;

  // Its worker loaded the model with its parameter.
  std::vector<int64_t> lanes;
  for (const pipette::testing::FakeCall& c : run.fake.calls()) {
    if (c.op == protocol::op::kLoadModel) lanes.push_back(c.request.value("lanes", int64_t{0}));
  }
  EXPECT_EQ(lanes, (std::vector<int64_t>{1, 2}));

  bool paired = false;
  for (const metrics::ResultRow& r : data->rows) {
    EXPECT_EQ(r.cell->runtime, "toyrt");
    for (const auto& [name, value] : compare::PairingKey(r, workload::Figures())) {
      paired = paired || (name == "runtime" && value == "toyrt");
    }
  }
  EXPECT_TRUE(paired);
  const report::Report report = report::BuildReport(*data, registry_, workload::Figures());
  ASSERT_FALSE(report.summary.rows.empty());
  const auto runtime = report.summary.Find("runtime");
  ASSERT_TRUE(runtime.has_value());
  EXPECT_NE(std::get<std::string>(report.summary.rows[0].values[*runtime]).find("toyrt"),
            std::string::npos);
  EXPECT_TRUE(report.summary.Find("lanes").has_value());
  // select's candidates and the page name it.
  const std::vector<std::string> candidates = run::CandidatesOf(*data, workload::Figures());
  ASSERT_EQ(candidates.size(), 2u);
  for (const std::string& c : candidates) EXPECT_NE(c.find("toyrt"), std::string::npos) << c;
  EXPECT_NE(run::PageOf(*data, registry_, workload::Figures()).find("toyrt"), std::string::npos);
}

}  // namespace
}  // namespace pipette::runtime
