// The recipe of docs/architecture.md "Adding a parameter": a made-up parameter of llama.cpp's,
// `toy_knob` (a test fixture, in this test's runtime registry only: an integer of the context
// stage, sent as init_context's `toy_knob`), is parsed and hashed under `params:`, swept by the
// plan, sent to the fake worker by the runner, stored with each cell, part of the key compare
// pairs figures by, and a column of the summary where it varies, with nothing outside this file
// written for it. (The worker's read of the field is the other half of the recipe: a real worker
// ignores a field it does not read.)
#include <gtest/gtest.h>

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

using nlohmann::json;

// The made-up parameter: its whole definition.
ParamDef ToyKnob() {
  return {.name = "toy_knob",
          .help = "a knob of the test's llama.cpp",
          .kind = ParamKind::kInt,
          .scope = ParamScope::kContext,
          .min = 1,
          .max = 8,
          .column = "toy",
          .aliases = {"knob"},
          .request_fields = {"toy_knob"},
          .order = 900};
}

// The runtimes Pipette ships, llama.cpp's with toy_knob.
const RuntimeRegistry& Runtimes() {
  static const RuntimeRegistry runtimes = [] {
    std::vector<Runtime> all = Registry().runtimes();
    for (Runtime& r : all) {
      if (r.name != "llama.cpp") continue;
      std::vector<ParamDef> defs = r.params.defs();
      defs.push_back(ToyKnob());
      r.params = ParamRegistry(std::move(defs));
    }
    return RuntimeRegistry(std::move(all));
  }();
  return runtimes;
}

class ParamRecipe : public config::ExperimentTest {
 protected:
  void SetUp() override {
    ExperimentTest::SetUp();
    opts_.runtimes = &Runtimes();
    registry_ = Runtimes().Params();
  }
  const std::string text_ =
      "models: [smollm2-135m-instruct-q4_1]\ntests: [tg4]\nparams:\n  toy_knob: [2, 4]\n";
};

TEST_F(ParamRecipe, AMadeUpParameterIsParsedHashedAndSwept) {
  auto ex = Parse(text_);
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  auto one = Parse("models: [smollm2-135m-instruct-q4_1]\ntests: [tg4]\nparams:\n  toy_knob: 2\n");
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_NE(ex->Hash(), one->Hash());
  auto cells = plan::Expand(*ex, Runtimes(), workload::PlanNeeds());
  ASSERT_TRUE(cells.ok()) << cells.error().message;
  EXPECT_EQ(cells->size(), 2u);
  // Checked as its entry says, and found by another tool's name for it.
  EXPECT_EQ(ErrorOf("models: [smollm2-135m-instruct-q4_1]\ntests: [tg4]\nparams:\n"
                    "  toy_knob: [9]\n")
                .rfind("ex.yaml:4:14: ", 0),
            0u);
  EXPECT_NE(ErrorOf("models: [smollm2-135m-instruct-q4_1]\ntests: [tg4]\nparams:\n  knob: [2]\n")
                .find("did you mean 'toy_knob'"),
            std::string::npos);
  // Pipette's own registry has no toy_knob.
  registry_ = ParamRegistry::Default();
  opts_.runtimes = &Registry();
  EXPECT_NE(ErrorOf(text_).find("toy_knob"), std::string::npos);
}

TEST_F(ParamRecipe, AMadeUpParameterIsSentStoredPairedAndShown) {
  auto ex = Parse(text_);
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  auto cells = plan::Expand(*ex, Runtimes(), workload::PlanNeeds());
  ASSERT_TRUE(cells.ok()) << cells.error().message;

  run::FakeWorkerRun run("param-recipe", registry_);
  const std::unique_ptr<workload::Workload> speed = workload::NewSpeed();
  const metrics::RowDerivers derivers = {speed.get(), &metrics::CellDeriver()};
  auto data = run.Run(*ex, *cells, registry_, Runtimes(), workload::SpeedAlone, derivers);
  ASSERT_TRUE(data.ok()) << data.error().message;

  // Sent in its stage's request, one value a cell.
  std::vector<int64_t> sent;
  for (const pipette::testing::FakeCall& c : run.fake.calls()) {
    if (c.op == protocol::op::kInitContext) sent.push_back(c.request.value("toy_knob", int64_t{0}));
  }
  EXPECT_EQ(sent, (std::vector<int64_t>{2, 4}));

  // Stored with each cell, part of the pairing key, and a column where it varies.
  std::vector<std::string> keys;
  for (const metrics::ResultRow& r : data->rows) {
    if (r.test != "tg4" || r.metric != "throughput") continue;
    EXPECT_TRUE(r.cell->params.contains("toy_knob")) << r.cell->params.dump();
    const compare::Key key = compare::PairingKey(r, workload::Figures());
    keys.push_back(json(key).dump());
  }
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_NE(keys[0], keys[1]);
  const report::Report report = report::BuildReport(*data, registry_, workload::Figures());
  const auto column = report.summary.Find("toy");
  ASSERT_TRUE(column.has_value());
  EXPECT_EQ(std::get<std::string>(report.summary.rows.at(0).values[*column]), "2");
  EXPECT_EQ(std::get<std::string>(report.summary.rows.at(1).values[*column]), "4");
  // select tells the two candidates apart by it, and the page shows it.
  const std::vector<std::string> candidates = run::CandidatesOf(*data, workload::Figures());
  ASSERT_EQ(candidates.size(), 2u);
  for (const std::string& c : candidates) {
    EXPECT_NE(c.find("toy_knob="), std::string::npos) << c;
  }
  EXPECT_NE(run::PageOf(*data, registry_, workload::Figures()).find("toy_knob"), std::string::npos);
}

}  // namespace
}  // namespace pipette::runtime
