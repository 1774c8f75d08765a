// The recipe of docs/architecture.md "Adding a speed test kind": a made-up kind, dec<N> (a test
// fixture, in this test's table only: N tokens decoded from the model's first token through the
// `tg` op the workers serve, its figure `dec_rate`), is parsed and hashed by config/ through the
// grammar it is given, run against the fake worker by the runner, derived, judged by compare's
// rule, named by a select constraint and found as a headline by the catalogue, with nothing
// outside this file written for it.
#include <gtest/gtest.h>

#include <filesystem>

#include "pipette/compare/compare.h"
#include "pipette/config/canonical.h"
#include "pipette/config/parse.h"
#include "pipette/metrics/cell_figures.h"
#include "pipette/metrics/derive.h"
#include "pipette/plan/plan.h"
#include "pipette/protocol/speed_ops.h"
#include "pipette/run/runner.h"
#include "pipette/run/runner_testing.h"
#include "pipette/runtime/registry.h"
#include "pipette/select/constraint.h"
#include "pipette/testing/fake_device.h"
#include "pipette/testing/fake_worker.h"
#include "pipette/workload/registry.h"
#include "pipette/workload/speed/figures.h"
#include "pipette/workload/speed/grammar.h"
#include "pipette/workload/speed/measures.h"
#include "pipette/workload/speed/speed.h"
#include "pipette/workload/speed/test_kinds.h"

namespace pipette::workload::speed {
namespace {

using nlohmann::json;

// The made-up kind: its whole definition.
TestKind DecKind() {
  TestKind k;
  k.name = "dec";
  k.form = "dec<N>";
  k.example = "dec16";
  k.parse = [](std::string_view text) { return TokensAfter(text, "dec", "dec", "dec"); };
  k.ops = {protocol::op::kTg};
  k.context_need = [](const config::TestSpec& t, int64_t depth) { return depth + t.n + 1; };
  k.units = [](const config::TestSpec& t) { return double(t.n); };
  k.request = [](const RequestInput& in) -> Result<Request, RunError> {
    protocol::TgRequest r{{}, 0, in.test.n, in.n_batch};
    return Request{r.ToJson(), {{"n_gen", in.test.n}}};
  };
  k.check = [](const json& reply) -> Status {
    auto typed = protocol::TgResponse::FromJson(reply);
    if (!typed) return typed.error();
    return {};
  };
  k.seconds = DecodeSeconds;
  k.derive = [](const DeriveInput& in, SpeedRows& out) {
    if (auto v = TgTokensPerSecond(in.sample.raw)) {
      out.rows.Add(in.sample.test, "dec_rate", "t/s", *v);
    }
  };
  k.figures = [] {
    return metrics::FigureList()
        .Add("dec<N>", {"dec_rate"}, "t/s", metrics::FigureKind::kSpeed, metrics::Better::kHigher)
        .Headline()
        .Take();
  };
  return k;
}

// The shipped kinds and the made-up one: this test's table.
const TestKindTable& Table() {
  static const TestKindTable table = [] {
    TestKindTable t = TestKinds();
    t.push_back(DecKind());
    return t;
  }();
  return table;
}

config::SpecRegistry Grammar() {
  return config::SpecRegistry({}, nullptr,
                              [](std::string_view text) { return ParseTestNameIn(Table(), text); });
}

TEST(SpeedKindRecipe, AMadeUpKindIsParsedAndHashed) {
  const config::SpecRegistry grammar = Grammar();
  auto parse = [&](const std::string& tests) {
    return config::ParseExperiment("models: [smollm2-135m-instruct-q4_1]\ntests: " + tests + "\n",
                                   "ex.yaml", runtime::ParamRegistry::Default(), grammar,
                                   runtime::Registry());
  };
  auto dec = parse("[dec016]");
  ASSERT_TRUE(dec.ok()) << dec.error().message;
  ASSERT_EQ(dec->tests.size(), 1u);
  EXPECT_EQ(dec->tests[0].kind, "dec");
  EXPECT_EQ(dec->tests[0].name, "dec16");  // canonical
  EXPECT_EQ(config::CanonicalForm(*dec)["tests"], json::array({"dec16"}));
  auto tg = parse("[tg16]");
  ASSERT_TRUE(tg.ok());
  EXPECT_NE(config::ConfigHash(*dec), config::ConfigHash(*tg));
  // Its grammar's errors and the unknown-test message are its own too.
  EXPECT_NE(parse("[dec]").error().message.find("after 'dec'"), std::string::npos);
  EXPECT_NE(parse("[xyz1]").error().message.find("dec<N>"), std::string::npos);
  // Without it in the table the name is unknown.
  EXPECT_FALSE(ParseTestName("dec16").ok());
}

TEST(SpeedKindRecipe, AMadeUpKindRunsIsDerivedJudgedAndSelectable) {
  run::RunnerTestBed bed;
  const runtime::ParamRegistry registry = runtime::ParamRegistry::Default();
  ASSERT_TRUE(run::OpenTestBed("speed-kind-recipe", registry, {}, &bed).ok());
  const std::filesystem::path dir = bed.dir;
  struct Cleanup {
    std::filesystem::path dir;
    ~Cleanup() { std::filesystem::remove_all(dir); }
  } cleanup{dir};
  bed.ex.models.resize(1);
  bed.ex.repetitions = 3;
  bed.ex.warmup = 1;
  bed.ex.tests = {*ParseTestNameIn(Table(), "dec8")};
  const plan::ContextNeeds needs{
      [](const config::Experiment& ex, int64_t depth) {
        return TokensNeeded(ex.tests, depth, Table());
      },
      [](const config::Experiment&, int64_t) { return std::string("the test dec8"); }};
  auto cells = plan::Expand(bed.ex, runtime::Registry(), needs);
  ASSERT_TRUE(cells.ok()) << cells.error().message;

  testing::FakeWorker fake;
  testing::FakeDevice device(&fake);
  const std::unique_ptr<Workload> speed = NewSpeed(Table());
  const metrics::RowDerivers derivers = {speed.get(), &metrics::CellDeriver()};
  run::RunnerDeps deps;
  deps.workloads = [] {
    std::vector<std::unique_ptr<Workload>> w;
    w.push_back(NewSpeed(Table()));
    return w;
  };
  deps.derivers = &derivers;
  deps.runtimes = &runtime::Registry();
  deps.device = &device;
  deps.store = bed.store.get();
  auto summary = run::RunExperiment(bed.ex, *cells, registry, bed.env_id, deps);
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  ASSERT_EQ(summary->cells_ok, 1) << (summary->failures.empty() ? ""
                                                                : summary->failures[0].message);

  // Derived from the stored samples: one rate per measured repetition, none of the warm-up.
  auto run = bed.store->Run(summary->run_id);
  ASSERT_TRUE(run.ok());
  auto stored = bed.store->Cells(summary->run_id);
  ASSERT_TRUE(stored.ok());
  std::vector<metrics::CellSamples> samples;
  for (const store::CellRecord& c : *stored) samples.push_back({c, *bed.store->Samples(c.id)});
  const auto rows =
      metrics::DeriveRows(*run, {bed.env_id, "fp", json::object()}, samples, derivers);
  const metrics::ResultRow* rate = nullptr;
  for (const auto& r : rows) {
    if (r.test == "dec8" && r.metric == "dec_rate") rate = &r;
  }
  ASSERT_NE(rate, nullptr);
  EXPECT_EQ(rate->samples.size(), 3u);
  EXPECT_GT(rate->value, 0);

  // Its figures, from the kind alone: a headline, compared higher-is-better by ratio, and a
  // constraint may name it.
  std::vector<metrics::FigureDef> defs = SpeedFiguresOf(Table());
  for (metrics::FigureDef& d : metrics::CellFigures()) defs.push_back(std::move(d));
  const metrics::FigureCatalogue figures(std::move(defs), {});
  EXPECT_TRUE(figures.IsHeadline(*rate));
  const auto rule = compare::RuleFor(figures.Of(*rate));
  ASSERT_TRUE(rule.has_value());
  EXPECT_EQ(rule->direction, compare::Direction::kHigherIsBetter);
  EXPECT_EQ(rule->of, compare::Change::Of::kRatio);
  EXPECT_TRUE(select::ParseConstraint("dec8 >= 1", "p.yaml", 1, 1, &figures).ok());
  EXPECT_FALSE(select::ParseConstraint("dec8 >= 1", "p.yaml", 1, 1, &workload::Figures()).ok());
}

}  // namespace
}  // namespace pipette::workload::speed
