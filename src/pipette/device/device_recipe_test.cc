// The recipe of docs/architecture.md "Adding a device": a made-up device kind, `toydev` (a test
// fixture, in this test's device kinds only: one required key, `host`, and a device that is a
// FakeDevice over a fake worker of its own, as no board reaches this machine), is parsed and
// checked under `devices:` from its options alone, hashed, given its cells by the plan, opened as
// `pipette run` opens a device (app::RunDevices) when its first cell runs and measured there, its
// rows and the report's results naming it, with nothing outside this file written for it.
#include <gtest/gtest.h>

#include "pipette/app/devices.h"
#include "pipette/config/experiment_testing.h"
#include "pipette/device/registry.h"
#include "pipette/metrics/cell_figures.h"
#include "pipette/plan/plan.h"
#include "pipette/protocol/ops.h"
#include "pipette/report/document.h"
#include "pipette/run/runner_testing.h"
#include "pipette/workload/registry.h"
#include "pipette/workload/speed/speed.h"
#include "pipette/workload/speed/speed_testing.h"

namespace pipette::device {
namespace {

class DeviceRecipe : public config::ExperimentTest {
 protected:
  void SetUp() override {
    ExperimentTest::SetUp();
    opts_.specs = &specs_;
  }

  // The made-up kind: its whole entry. The device it makes runs its workers on `board_`.
  DeviceKind ToyDev() {
    return {"toydev",
            {{"host", OptionType::kString, true, "the toy board's address"}},
            [this](const std::string& name, const nlohmann::json& options,
                   CommandRunner&) -> Result<std::unique_ptr<Device>> {
              auto d = std::make_unique<pipette::testing::FakeDevice>(&board_, name);
              d->fingerprint = {{"host", options.value("host", "")}};
              return std::unique_ptr<Device>(std::move(d));
            }};
  }

  pipette::testing::FakeWorker board_;  // the toy board's workers
  // The kinds Pipette ships, and toydev.
  const DeviceKindRegistry kinds_{[this] {
    std::vector<DeviceKind> all = DeviceKinds().kinds();
    all.push_back(ToyDev());
    return all;
  }()};
  const config::SpecRegistry specs_ = config::testing::TestsOnly().WithDevices(&kinds_);
  const std::string text_ =
      "models: [smollm2-135m-instruct-q4_1]\ntests: [tg4]\n"
      "devices:\n  - {name: bench, toydev: {host: 10.0.0.9}}\n";
};

TEST_F(DeviceRecipe, AMadeUpKindIsParsedCheckedAndHashed) {
  auto ex = Parse(text_);
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  ASSERT_EQ(ex->devices.size(), 1u);
  EXPECT_EQ(ex->devices[0].kind, "toydev");
  EXPECT_EQ(ex->devices[0].name, "bench");
  EXPECT_EQ(ex->devices[0].options.value("host", ""), "10.0.0.9");
  auto other = Parse(
      "models: [smollm2-135m-instruct-q4_1]\ntests: [tg4]\n"
      "devices:\n  - {name: bench, toydev: {host: 10.0.0.8}}\n");
  ASSERT_TRUE(other.ok()) << other.error().message;
  EXPECT_NE(ex->Hash(), other->Hash());
  // Its keys, from its entry alone.
  EXPECT_NE(ErrorOf("models: [smollm2-135m-instruct-q4_1]\ntests: [tg4]\n"
                    "devices:\n  - {name: bench, toydev: {hots: 10.0.0.9}}\n")
                .find("did you mean 'host'"),
            std::string::npos);
  EXPECT_NE(ErrorOf("models: [smollm2-135m-instruct-q4_1]\ntests: [tg4]\n"
                    "devices:\n  - {name: bench, toydev: {}}\n")
                .find("host"),
            std::string::npos);
  // The kinds Pipette ships have no toydev.
  opts_.specs = &config::testing::TestsOnly();
  EXPECT_NE(ErrorOf(text_).find("unknown key 'toydev' in a device"), std::string::npos);
}

TEST_F(DeviceRecipe, AMadeUpKindIsOpenedAndMeasuredOn) {
  auto ex = Parse(text_);
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  auto cells = plan::Expand(*ex, runtime::Registry(), workload::PlanNeeds());
  ASSERT_TRUE(cells.ok()) << cells.error().message;
  ASSERT_EQ(cells->size(), 1u);
  EXPECT_EQ(cells->at(0).device.name, "bench");

  run::FakeWorkerRun run("device-recipe", registry_);  // its fake worker: this machine's
  const std::unique_ptr<workload::Workload> speed = workload::NewSpeed();
  const metrics::RowDerivers derivers = {speed.get(), &metrics::CellDeriver()};
  // Opened as `pipette run` opens a device (app::RunDevices), with this test's kinds.
  pipette::testing::FakeDevice local(&run.fake);
  app::RunDevices devices(local, *run.bed.store, dir_.path().string(),
                          /*measure_bandwidth=*/false, kinds_);
  auto data = run.Run(*ex, *cells, registry_, runtime::Registry(), workload::SpeedAlone, derivers,
                      [&](run::RunnerDeps& deps) {
                        deps.open_device = [&](const config::DeviceSpec& spec) {
                          return devices.Open(spec);
                        };
                      });
  ASSERT_TRUE(data.ok()) << data.error().message;
  // Measured on the toy board, not on this machine.
  EXPECT_GT(board_.Count(protocol::op::kTg), 0);
  EXPECT_EQ(run.fake.Count(protocol::op::kTg), 0);
  bool rows = false;
  for (const metrics::ResultRow& r : data->rows) {
    EXPECT_EQ(r.cell->device.rfind("bench: ", 0), 0u) << r.cell->device;
    rows = true;
  }
  EXPECT_TRUE(rows);
  const report::Report report = report::BuildReport(*data, registry_, workload::Figures());
  const auto device = report.results.Find("device");
  ASSERT_TRUE(device.has_value());
  ASSERT_FALSE(report.results.rows.empty());
  for (const report::Row& row : report.results.rows) {
    EXPECT_EQ(std::get<std::string>(row.values[*device]).rfind("bench: ", 0), 0u);
  }
  // select's candidate is on it, and the page names it.
  const std::vector<std::string> candidates = run::CandidatesOf(*data, workload::Figures());
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_NE(candidates[0].find("@ bench: "), std::string::npos) << candidates[0];
  EXPECT_NE(run::PageOf(*data, registry_, workload::Figures()).find("bench"), std::string::npos);
}

}  // namespace
}  // namespace pipette::device
