#include "pipette/workload/planned_work.h"

#include <gtest/gtest.h>

#include "pipette/metrics/history.h"
#include "pipette/workload/gen/spec.h"
#include "pipette/workload/kld/spec.h"
#include "pipette/workload/mc/spec.h"
#include "pipette/workload/ppl/spec.h"
#include "pipette/workload/registry.h"
#include "pipette/workload/speed/test_kinds.h"

namespace pipette::workload {
namespace {

plan::Cell MakeCell(const std::string& model, const std::string& threads) {
  plan::Cell c;
  c.model.name = model;
  c.model.path = "/models/" + model + ".gguf";
  c.runtime.name = "llama.cpp";
  c.params = {{"threads", threads}};
  return c;
}

TEST(PlannedWork, SpeedTestsAndLoadsOfAPlan) {
  config::Experiment ex;
  ex.tests = {*workload::ParseTestName("pp100"), *workload::ParseTestName("tg10")};
  ex.warmup = 1;
  ex.repetitions = 3;
  const auto reg = runtime::ParamRegistry::Default();
  // threads is a context parameter: both cells share one load.
  const std::vector<plan::Cell> cells = {MakeCell("m", "1"), MakeCell("m", "2")};
  const auto work = PlannedWork(ex, cells, reg, MakeWorkloads());
  ASSERT_EQ(work.size(), 5u);
  EXPECT_EQ(work[0].kind, "load");
  EXPECT_EQ(work[1].test, "pp100");
  EXPECT_EQ(work[1].kind, "pp");
  EXPECT_DOUBLE_EQ(work[1].requests, 4);
  EXPECT_DOUBLE_EQ(work[1].units, 100);
  EXPECT_EQ(work[2].kind, "tg");
  EXPECT_EQ(work[3].cell_key, cells[1].Key());
  // Only the cells asked for (a resume).
  const auto rest = PlannedWork(ex, cells, reg, MakeWorkloads(),
                                [](const plan::Cell& c) { return c.params.at(0).second == "2"; });
  ASSERT_EQ(rest.size(), 3u);
  EXPECT_EQ(rest[0].kind, "load");
}

TEST(PlannedWork, AnotherDevicesWorkIsItsOwnKind) {
  config::Experiment ex;
  ex.tests = {*workload::ParseTestName("tg10")};
  ex.repetitions = 1;
  const auto reg = runtime::ParamRegistry::Default();
  plan::Cell board = MakeCell("m", "1");
  board.device.name = "board";
  board.device.kind = "ssh";
  const auto work = PlannedWork(ex, {MakeCell("m", "1"), board}, reg, MakeWorkloads());
  ASSERT_EQ(work.size(), 4u);
  EXPECT_EQ(work[0].kind, "load");
  EXPECT_EQ(work[1].kind, "tg");
  EXPECT_EQ(work[2].kind, "load@board");  // the board loads its own model
  EXPECT_EQ(work[3].kind, "tg@board");
  EXPECT_EQ(estimate::DeviceOfKey(work[3].cell_key), "board");  // the key history is read back by
}

TEST(PlannedWork, PlanEstimateOfQualityWorkloads) {
  config::Experiment ex;
  SetPplSpec(&ex, PplSpec{"/nonexistent", 512, 4, 1});
  SetKldSpec(&ex, KldSpec{"ref", "/nonexistent", 256, 2, 128, 1});
  SetGenSpec(&ex, GenSpec{"/g.jsonl", 3, 10, 100, 1});
  McSpec mc_spec;
  mc_spec.n_items = 5;
  SetMcSpec(&ex, mc_spec);
  const std::vector<plan::Cell> cells = {MakeCell("ref", "1"), MakeCell("other", "1")};
  estimate::History h;
  h.seconds_per_request[{cells[0].Key(), "ppl"}] = 2.0;  // this cell's ppl chunks took 2 s
  h.seconds_per_unit["ppl"] = 0.002;                     // any ppl token elsewhere
  h.seconds_per_unit["kld"] = 0.001;                     // any kld token
  h.seconds_per_unit["gen"] = 1.5;                       // any generation item
  h.seconds_per_unit["load"] = 0.25;
  const estimate::Estimate e =
      EstimateRun(ex, cells, runtime::ParamRegistry::Default(), MakeWorkloads(), h);
  const double ref_s = 0.25 + 2.0 * 4 + 0.001 * 256 * 2 * 2 + 1.5 * 3;  // ppl, kld_ref + kld
  const double other_s = 0.25 + 0.002 * 512 * 4 + 0.001 * 256 * 2 + 1.5 * 3;
  EXPECT_DOUBLE_EQ(e.seconds, ref_s + other_s);
  EXPECT_EQ(e.uncovered, 2);  // mc (never measured before), per cell
}

// A store that measured mc (its samples carry timestamps) covers mc in the estimate.
TEST(PlannedWork, AStoreThatMeasuredMcCoversIt) {
  config::Experiment ex;
  McSpec mc_spec;
  mc_spec.n_items = 5;
  SetMcSpec(&ex, mc_spec);
  const std::vector<plan::Cell> cells = {MakeCell("m", "1")};
  store::SampleRecord mc;
  mc.test = "mc";
  mc.raw = {{"t_start_ns", 0}, {"t_end_ns", 400000000}};  // 0.4 s for one item
  store::SampleRecord load;
  load.test = "load";
  load.raw = {{"t_start_ns", 0}, {"t_end_ns", 250000000}};
  const estimate::History h =
      metrics::BuildHistory({{"elsewhere", mc}, {"elsewhere", load}}, Derivers());
  const estimate::Estimate e =
      EstimateRun(ex, cells, runtime::ParamRegistry::Default(), MakeWorkloads(), h);
  EXPECT_EQ(e.uncovered, 0);
  EXPECT_DOUBLE_EQ(e.seconds, 0.25 + 0.4 * 5);
}

// The plan's work is the work of the workloads given: none, only the loads.
TEST(PlannedWork, IsTheWorkOfTheWorkloadsGiven) {
  config::Experiment ex;
  ex.tests = {*workload::ParseTestName("tg10")};
  ex.repetitions = 1;
  const auto work =
      PlannedWork(ex, {MakeCell("m", "1")}, runtime::ParamRegistry::Default(), Workloads());
  ASSERT_EQ(work.size(), 1u);
  EXPECT_EQ(work[0].kind, "load");
}

}  // namespace
}  // namespace pipette::workload
