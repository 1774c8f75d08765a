// The readiness gate and the cooldown in the runner, with a fake worker (testing::FakeWorker), a
// scripted probe and a fake clock: what the gate found is stored with each measured repetition,
// a device not ready by the deadline fails that cell (with --strict, the run), and the cooldown
// waits between cells. The probes themselves are tested in app/ready_probes_test.cc and
// env/cpu_busy_test.cc.
#include <gtest/gtest.h>

#include <deque>
#include <filesystem>

#include "pipette/metrics/derive.h"
#include "pipette/run/runner.h"
#include "pipette/run/runner_testing.h"
#include "pipette/runtime/registry.h"
#include "pipette/testing/fake_worker.h"
#include "pipette/workload/registry.h"
#include "pipette/workload/speed/test_kinds.h"

namespace pipette::run {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

class ScriptedProbe : public ReadyProbe {
 public:
  ScriptedProbe(std::deque<ReadyLook>* looks, double* now) : looks_(looks), now_(now) {}
  Result<ReadyLook> Look(double window_s) override {
    *now_ += window_s;
    if (looks_->empty()) return RuntimeError("no more looks");
    ReadyLook l = looks_->front();
    if (looks_->size() > 1) looks_->pop_front();
    return l;
  }

 private:
  std::deque<ReadyLook>* looks_;
  double* now_;
};

ReadyLook Look(double busy, std::optional<double> temp = std::nullopt) {
  ReadyLook l;
  l.cpu_busy = busy;
  l.temp_c = temp;
  return l;
}

class RunnerReadyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RunnerTestBed bed;
    ASSERT_TRUE(OpenTestBed("runner-ready-test", registry_, {{"threads", {"1"}}}, &bed).ok());
    dir_ = bed.dir;
    store_ = std::move(bed.store);
    env_id_ = bed.env_id;
    ex_ = std::move(bed.ex);
    ex_.tests = {*workload::ParseTestName("tg4")};
    ex_.repetitions = 2;
    ex_.warmup = 1;
  }
  void TearDown() override {
    store_.reset();
    fs::remove_all(dir_);
  }
  Result<RunSummary> Run(bool strict = false) {
    auto cells = plan::Expand(ex_, runtime::Registry(), workload::PlanNeeds());
    EXPECT_TRUE(cells.ok());
    cells_ = *cells;
    RunnerDeps deps;
    deps.workloads = workload::MakeWorkloads;
    deps.runtimes = &runtime::Registry();
    deps.derivers = &workload::Derivers();
    deps.device = &device_;
    deps.store = store_.get();
    deps.conditions = [] { return json{{"load_avg_1", 0.1}}; };
    deps.model_facts = [](const std::string&) {
      return Result<ModelFacts>(ModelFacts{"sha", 1234, {{"quant", "Q4_1"}}});
    };
    deps.ready_probe = [this](device::Device&) -> std::unique_ptr<ReadyProbe> {
      ++probes_made_;
      return std::make_unique<ScriptedProbe>(&looks_, &now_);
    };
    deps.clock = {[this] { return now_; },
                  [this](double s) {
                    now_ += s;
                    slept_.push_back(s);
                  }};
    deps.strict = strict;
    return RunExperiment(ex_, cells_, registry_, env_id_, deps);
  }
  // The `ready` of each measured repetition of `test` in cell `i`, in order.
  std::vector<json> ReadyOf(int64_t run, size_t i, const std::string& test) {
    std::vector<json> out;
    auto cells = store_->Cells(run);
    EXPECT_TRUE(cells.ok());
    auto samples = store_->Samples((*cells)[i].id);
    EXPECT_TRUE(samples.ok());
    for (const auto& s : *samples) {
      if (s.test == test && !s.warmup) out.push_back(s.raw.value("ready", json()));
    }
    return out;
  }

  runtime::ParamRegistry registry_ = runtime::ParamRegistry::Default();
  config::Experiment ex_;
  std::vector<plan::Cell> cells_;
  testing::FakeWorker fake_;
  testing::FakeDevice device_{&fake_};
  std::unique_ptr<store::Store> store_;
  fs::path dir_;
  int64_t env_id_ = 0;
  std::deque<ReadyLook> looks_;
  double now_ = 1000;
  std::vector<double> slept_;
  int probes_made_ = 0;
};

TEST_F(RunnerReadyTest, WithoutReadyNothingIsGatedOrStored) {
  looks_ = {Look(0.9)};
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_ok, 2);
  EXPECT_EQ(ReadyOf(s->run_id, 0, "tg4"), (std::vector<json>{json(), json()}));
  EXPECT_EQ(now_, 1000);  // no look was taken
}

TEST_F(RunnerReadyTest, EachMeasuredRepetitionWaitsUntilReadyAndStoresWhatWasFound) {
  SetReady(&ex_, ReadySpec{});                  // 10% over 1 s, 600 s
  looks_ = {Look(0.5), Look(0.3), Look(0.02)};  // busy twice, then quiet for good
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_ok, 2);
  EXPECT_EQ(probes_made_, 1);  // one probe for the device
  const auto first = ReadyOf(s->run_id, 0, "tg4");
  ASSERT_EQ(first.size(), 2u);  // the warm-up is not gated
  EXPECT_EQ(first[0]["ready"], true);
  EXPECT_EQ(first[0]["looks"], 3);
  EXPECT_DOUBLE_EQ(first[0]["waited_s"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(first[0]["cpu_busy"].get<double>(), 0.02);
  EXPECT_EQ(first[1]["looks"], 1);
}

TEST_F(RunnerReadyTest, NotReadyByTheDeadlineFailsTheCellAndTheRunGoesOn) {
  ReadySpec ready;
  ready.deadline_s = 3;
  SetReady(&ex_, ready);
  looks_ = {Look(0.8)};  // someone else keeps the CPUs busy throughout
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_failed, 2);
  auto cells = store_->Cells(s->run_id);
  ASSERT_TRUE(cells.ok());
  EXPECT_EQ((*cells)[0].error,
            "not ready after waiting 3 s: other processes kept the CPUs 80% busy over 1 s, above "
            "the 10% allowed");
  EXPECT_EQ((*cells)[1].status, "failed");  // the next cell ran, and waited too
  // The refusal is kept in the cell's conditions: its figures are marked untrusted.
  EXPECT_EQ((*cells)[0].conditions.value("not_ready", ""), (*cells)[0].error);
  EXPECT_EQ(metrics::UntrustedReason((*cells)[0].conditions),
            "the readiness gate found the device not ready: " + (*cells)[0].error);
}

TEST_F(RunnerReadyTest, StrictRefusesTheRestOfTheRun) {
  ReadySpec ready;
  ready.deadline_s = 2;
  SetReady(&ex_, ready);
  looks_ = {Look(0.8)};
  auto s = Run(/*strict=*/true);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("--strict: the device was not ready for cell 1"),
            std::string::npos)
      << s.error().message;
  auto runs = store_->Runs();
  ASSERT_TRUE(runs.ok());
  auto cells = store_->Cells(runs->back().id);
  ASSERT_TRUE(cells.ok());
  EXPECT_EQ(cells->size(), 1u);  // the second cell never began
  EXPECT_EQ(runs->back().status, "failed");
}

TEST_F(RunnerReadyTest, CooldownWaitsBetweenCellsNotBeforeTheFirst) {
  SetCooldown(&ex_, {30, false});
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  // Between the two cells only, a second at a time (Ctrl-C need not wait for the rest).
  EXPECT_EQ(slept_, std::vector<double>(30, 1.0));
  auto cells = store_->Cells(s->run_id);
  ASSERT_TRUE(cells.ok());
  EXPECT_FALSE((*cells)[0].conditions.contains("cooldown"));
  EXPECT_DOUBLE_EQ((*cells)[1].conditions["cooldown"]["waited_s"].get<double>(), 30);
}

TEST_F(RunnerReadyTest, CooldownUntilTheTemperatureTheDeviceStartedAt) {
  SetCooldown(&ex_, {0, true});
  // At the first cell 40 °C; after it, 46 and 43 before it is back at 40.
  looks_ = {Look(0.0, 40.0), Look(0.0, 46.0), Look(0.0, 43.0), Look(0.0, 40.0)};
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto cells = store_->Cells(s->run_id);
  ASSERT_TRUE(cells.ok());
  EXPECT_EQ((*cells)[0].conditions["start_temp_c"], 40.0);
  const json& c = (*cells)[1].conditions["cooldown"];
  EXPECT_EQ(c["reached"], true);
  EXPECT_EQ(c["temp_c"], 40.0);
  EXPECT_EQ(c["start_temp_c"], 40.0);
  EXPECT_DOUBLE_EQ(c["waited_s"].get<double>(), 3.0);  // three looks of 1 s
}

}  // namespace
}  // namespace pipette::run
