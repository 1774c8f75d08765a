// The recipe of docs/architecture.md "Adding a workload", whole: a made-up quality workload, `wc`
// (a test fixture, in this test's registries only: `quality: wc: {words: N}` tokenizes N words
// through the cell's worker and derives the tokens a word takes), is parsed, hashed and resolved
// by config/ through its def, run by the runner against the fake worker, derived from its stored
// sample, judged by compare's rule, named by a select constraint and shown in the summary and on
// the HTML page, with nothing outside this file written for it. (spec_recipe_test.cc tries a
// spec's errors and files in more detail.)
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "pipette/compare/compare.h"
#include "pipette/config/canonical.h"
#include "pipette/metrics/cell_figures.h"
#include "pipette/metrics/row_builder.h"
#include "pipette/metrics/vary.h"
#include "pipette/plan/plan.h"
#include "pipette/protocol/ops.h"
#include "pipette/report/document.h"
#include "pipette/report/formats.h"
#include "pipette/report/load.h"
#include "pipette/run/runner.h"
#include "pipette/run/runner_testing.h"
#include "pipette/select/constraint.h"
#include "pipette/testing/fake_device.h"
#include "pipette/testing/fake_worker.h"
#include "pipette/workload/spec_testing.h"
#include "pipette/workload/speed/speed.h"
#include "pipette/workload/speed/speed_testing.h"

namespace pipette::workload {
namespace {

using nlohmann::json;

// Its spec: `wc: {words: N}`, as written and as resolved.
struct WrittenWc {
  std::optional<int64_t> words{};
};
struct WcSpec {
  int64_t words = 3;
};

class WcSpecDef : public config::SpecDef {
 public:
  std::string Name() const override { return "wc"; }
  Result<std::any> Parse(const config::Where& w, const YAML::Node& node) const override {
    WrittenWc spec;
    auto m = config::YamlMapping::Read(w, node, "wc", "wc: takes a mapping (words:)");
    if (!m) return m.error();
    if (auto st = m->OnlyKeys({"words"}, " in wc"); !st) return st.error();
    spec.words = m->fields().OptionalInt("words", 1, 100);
    if (auto st = m->status(); !st) return st.error();
    return std::any(spec);
  }
  json Canonical(const std::any& written) const override {
    const auto& spec = std::any_cast<const WrittenWc&>(written);
    return spec.words ? json{{"words", *spec.words}} : json::object();
  }
  Result<std::any> Resolve(const config::Where&, const std::any& written,
                           const config::ResolveOptions&) const override {
    WcSpec spec;
    spec.words = std::any_cast<const WrittenWc&>(written).words.value_or(spec.words);
    return std::any(spec);
  }
  json Resolved(const std::any& resolved) const override {
    return {{"words", std::any_cast<const WcSpec&>(resolved).words}};
  }
};

// The workload: one phase, one sample, one figure.
class Wc : public Workload {
 public:
  std::string Name() const override { return "wc"; }
  std::vector<Phase> Phases(const config::Experiment& ex) const override {
    if (!ex.quality.Get<WcSpec>("wc")) return {};
    return {{"wc", {protocol::op::kTokenize}}};
  }
  int64_t ContextNeed(const config::Experiment&, int64_t) const override { return 0; }
  void PlanWork(const config::Experiment&, const plan::Cell&,
                std::vector<estimate::Work>*) const override {}
  metrics::Headlines Headlines() const override {
    metrics::Headline h;
    h.column = "wc tokens/word";
    h.order = 90;
    h.shows = [](const metrics::ResultRow& r) { return r.test == "wc"; };
    h.makes_line = h.shows;
    h.text = [](const std::vector<const metrics::ResultRow*>& rows) {
      const metrics::ResultRow* r = metrics::LastWithMetric(rows, "tokens_per_word");
      return r ? fmt::format("{:.2f}", r->value) : std::string();
    };
    return {h};
  }
  RunStatus Run(Context& ctx, size_t) override {
    const int64_t words = ctx.Experiment().quality.Get<WcSpec>("wc")->words;
    std::string text;
    for (int64_t i = 0; i < words; ++i) text += i ? " word" : "word";
    auto tokens = Tokenize(ctx, text, /*add_special=*/false);
    if (!tokens) return tokens.error();
    return ctx.Keep("wc", 0, false, {{"words", words}, {"tokens", tokens->size()}});
  }
  Status Derive(const metrics::ResultRow& base, const metrics::CellSamples& cell,
                const metrics::CellsById&, const store::EnvironmentRecord&,
                std::vector<metrics::ResultRow>* rows) const override {
    metrics::RowBuilder b;
    for (const store::SampleRecord& s : cell.samples) {
      if (s.test != "wc") continue;
      b.Add("wc", "tokens_per_word", "tokens/word",
            s.raw.value("tokens", 0.0) / s.raw.value("words", 1.0));
    }
    b.AppendRows(base, rows);
    return {};
  }
  static std::vector<metrics::FigureDef> Figures() {
    return metrics::FigureList()
        .Add("wc", {"tokens_per_word"}, "tokens/word", metrics::FigureKind::kQuality,
             metrics::Better::kLower, metrics::ValueKind::kAmount,
             metrics::Statistic::kMeasuredOnce)
        .Score(metrics::ScoreGroup::kQuality, "wc", metrics::Better::kLower)
        .Vary("wc tokens/word")
        .Take();
  }
};

class WorkloadRecipe : public SpecTest {
 protected:
  void SetUp() override {
    SpecTest::SetUp();
    opts_.specs = &specs_;
  }
  WcSpecDef def_;
  config::SpecRegistry specs_{{&def_}, nullptr, ParseTestName};
  const std::string text_ = kSmol + "tests: [tg4]\nquality:\n  wc: {words: 4}\n";
};

TEST_F(WorkloadRecipe, AMadeUpWorkloadIsParsedHashedAndResolved) {
  auto ex = Parse(text_);
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  ASSERT_NE(ex->quality.Get<WcSpec>("wc"), nullptr);
  EXPECT_EQ(ex->quality.Get<WcSpec>("wc")->words, 4);
  EXPECT_EQ(ex->Canonical()["quality"]["wc"], (json{{"words", 4}}));
  EXPECT_EQ(ex->Resolved()["quality"]["wc"], (json{{"words", 4}}));
  auto three = Parse(kSmol + "tests: [tg4]\nquality:\n  wc: {words: 3}\n");
  ASSERT_TRUE(three.ok());
  EXPECT_NE(ex->Hash(), three->Hash());
  EXPECT_EQ(ErrorOf(kSmol + "quality:\n  wc: {words: 0}\n"),
            "ex.yaml:3:15: field 'wc.words' must be between 1 and 100, got 0");
  // The registry Pipette ships has no wc.
  EXPECT_NE(WrittenErrorOf(text_).find("unknown quality workload 'wc'"), std::string::npos);
}

TEST_F(WorkloadRecipe, AMadeUpWorkloadRunsIsDerivedJudgedSelectableAndShown) {
  auto ex = Parse(text_);
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  const plan::ContextNeeds needs{[](const config::Experiment&, int64_t) { return int64_t{64}; },
                                 [](const config::Experiment&, int64_t) { return std::string(); }};
  auto cells = plan::Expand(*ex, runtime::Registry(), needs);
  ASSERT_TRUE(cells.ok()) << cells.error().message;

  run::FakeWorkerRun run("workload-recipe", registry_);
  // This test's workloads: the speed tests Pipette ships, and wc.
  const std::unique_ptr<Workload> speed = NewSpeed();
  Wc wc;
  const metrics::RowDerivers derivers = {speed.get(), &wc, &metrics::CellDeriver()};
  auto workloads = [] {
    std::vector<std::unique_ptr<Workload>> w = SpeedAlone();
    w.push_back(std::make_unique<Wc>());
    return w;
  };
  auto data = run.Run(*ex, *cells, registry_, runtime::Registry(), workloads, derivers);
  ASSERT_TRUE(data.ok()) << data.error().message;
  EXPECT_EQ(run.fake.Count(protocol::op::kTokenize), 1);

  // Derived from its stored sample: "word word word word" is 19 bytes, a fake token each.
  const metrics::ResultRow* row = nullptr;
  for (const metrics::ResultRow& r : data->rows) {
    if (r.test == "wc" && r.metric == "tokens_per_word") row = &r;
  }
  ASSERT_NE(row, nullptr);
  EXPECT_DOUBLE_EQ(row->value, 19.0 / 4);

  // Its figures, from the workload alone: compared lower-is-better, a constraint may name it.
  std::vector<metrics::FigureDef> defs = Wc::Figures();
  for (metrics::FigureDef& d : metrics::CellFigures()) defs.push_back(std::move(d));
  const metrics::FigureCatalogue figures(std::move(defs), wc.Headlines());
  const auto rule = compare::RuleFor(figures.Of(*row));
  ASSERT_TRUE(rule.has_value());
  EXPECT_EQ(rule->direction, compare::Direction::kLowerIsBetter);
  EXPECT_TRUE(select::ParseConstraint("wc.tokens_per_word <= 5", "p.yaml", 1, 1, &figures).ok());
  // `report --vary` compares it, in the column its figure names.
  auto vary = metrics::BuildVaryTable(data->rows, "model", registry_, figures);
  ASSERT_TRUE(vary.ok()) << vary.error().message;
  EXPECT_TRUE(std::any_of(vary->columns.begin(), vary->columns.end(),
                          [](const metrics::VaryColumn& c) { return c.name == "wc tokens/word"; }));

  // Shown: its summary column, and its rows on the page.
  const report::Report r =
      report::BuildReport(*data, registry_, figures, report::ReportParts::kPage);
  const auto column = r.summary.Find("wc tokens/word");
  ASSERT_TRUE(column.has_value());
  ASSERT_FALSE(r.summary.rows.empty());
  EXPECT_EQ(std::get<std::string>(r.summary.rows[0].values[*column]), "4.75");
  std::ostringstream page;
  (*report::FindFormat("html"))->render(r, page);
  EXPECT_NE(page.str().find("tokens_per_word"), std::string::npos);
}

}  // namespace
}  // namespace pipette::workload
