#include "pipette/compare/compare.h"

#include <gtest/gtest.h>

#include <cmath>

#include "pipette/workload/registry.h"

namespace pipette::compare {
namespace {

using metrics::ResultRow;

ResultRow Row(const std::string& model, const std::string& test, const std::string& metric,
              const std::string& unit, std::vector<double> samples, int threads = 2) {
  ResultRow r;
  metrics::CellFacts& c = r.EditCell();
  c.model = model;
  c.model_sha256 = "sha-" + model;
  c.quant = "Q4_1";
  c.runtime = "llama.cpp";
  c.runtime_version = "b1";
  c.device = "Intel Xeon";
  c.params = {{"threads", threads}};
  r.test = test;
  r.metric = metric;
  r.unit = unit;
  r.samples = std::move(samples);
  return r;
}

const std::vector<double> kBase = {50.1, 49.8, 50.3, 50.0, 49.9};
const std::vector<double> kFast = {60.2, 59.9, 60.1, 60.4, 60.0};

// Options with the gate file "g" of `lines`.
CompareOptions Gated(const char* lines) {
  CompareOptions o;
  o.gate = *ParseGate(lines, "g");
  o.gate_file = "g";
  return o;
}

TEST(Compare, RowsPairOnEveryKeyAndUnpairedOnesAreListed) {
  const std::vector<ResultRow> a = {Row("m", "tg128", "throughput", "t/s", kBase),
                                    Row("m", "pp512", "throughput", "t/s", kBase),
                                    Row("m", "tg128", "throughput", "t/s", kBase, 4)};
  const std::vector<ResultRow> b = {Row("m", "tg128", "throughput", "t/s", kFast),
                                    Row("m", "tg128", "throughput", "t/s", kBase, 8)};
  auto c = Compare(workload::Figures(), a, b, {});
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->figures.size(), 1u);
  EXPECT_EQ(c->figures[0].change.verdict, Verdict::kBetter);
  // Labelled by what tells figures apart (the test alone here); the rest said once.
  EXPECT_EQ(c->figures[0].label, "test=tg128");
  EXPECT_NE(c->common.find("model=m quant=Q4_1"), std::string::npos) << c->common;
  EXPECT_NE(c->common.find("threads=2"), std::string::npos) << c->common;
  EXPECT_EQ(c->baseline_only.size(), 2u);  // pp512, and tg128 at 4 threads
  ASSERT_EQ(c->candidate_only.size(), 1u);
  EXPECT_NE(c->candidate_only[0].find("threads=8"), std::string::npos);
}

TEST(Compare, AnIgnoredKeyPairsANewModelWithTheCurrentOne) {
  const std::vector<ResultRow> a = {Row("old", "tg128", "throughput", "t/s", kBase)};
  const std::vector<ResultRow> b = {Row("new", "tg128", "throughput", "t/s", kBase)};
  auto strict = Compare(workload::Figures(), a, b, {});
  ASSERT_TRUE(strict.ok());
  EXPECT_TRUE(strict->figures.empty());
  CompareOptions o;
  o.ignore = {"model"};
  auto across = Compare(workload::Figures(), a, b, o);
  ASSERT_TRUE(across.ok()) << across.error().message;
  ASSERT_EQ(across->figures.size(), 1u);
  EXPECT_EQ(across->figures[0].change.verdict, Verdict::kNoRealChange);
  EXPECT_EQ(across->ignored, std::vector<std::string>{"model"});
  EXPECT_EQ(across->figures[0].label.find("model="), std::string::npos);
  o.ignore = {"modle"};
  auto typo = Compare(workload::Figures(), a, b, o);
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.error().exit_code, 2);
  EXPECT_NE(typo.error().message.find("--ignore modle: not a key the rows pair on"),
            std::string::npos);
  EXPECT_NE(typo.error().message.find("did you mean 'model'"), std::string::npos)
      << typo.error().message;
}

TEST(Compare, FiguresWithoutADirectionAreNotCompared) {
  const std::vector<ResultRow> a = {Row("m", "tg128", "generated_tokens", "tokens", kBase),
                                    Row("m", "load", "rss_delta", "bytes", {5e6}),
                                    Row("m", "memory", "peak_rss", "bytes", {1e8})};
  auto c = Compare(workload::Figures(), a, a, {});
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->figures.size(), 1u);
  EXPECT_EQ(c->figures[0].metric, "peak_rss");
  // Measured once a cell: compared as single values.
  EXPECT_TRUE(c->figures[0].change.measured_once);
  EXPECT_EQ(c->figures[0].change.verdict, Verdict::kNoRealChange);
}

TEST(Compare, AGateLineFailsOnlyWhenWorseAndPastItsLimit) {
  const std::vector<ResultRow> base = {Row("m", "tg128", "throughput", "t/s", kFast),
                                       Row("m", "memory", "peak_rss", "bytes", {100})};
  const std::vector<ResultRow> slower = {Row("m", "tg128", "throughput", "t/s", kBase),
                                         Row("m", "memory", "peak_rss", "bytes", {101})};
  CompareOptions o;
  o.gate = *ParseGate("tg128: -3%\npeak_rss: +5%\n", "release.gate");
  o.gate_file = "release.gate";
  auto c = Compare(workload::Figures(), base, slower, o);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->figures.size(), 2u);
  for (const FigureComparison& f : c->figures) {
    ASSERT_TRUE(f.gate.has_value()) << f.label;
    if (f.metric == "throughput") {
      EXPECT_EQ(f.change.verdict, Verdict::kWorse);
      EXPECT_TRUE(f.gate_failed);  // 17% slower, past -3%
    } else {
      EXPECT_EQ(f.change.verdict, Verdict::kNoRealChange);  // +1%, within the line's +5%
      EXPECT_FALSE(f.gate_failed);
    }
  }
  EXPECT_TRUE(c->gate_failed);
  EXPECT_EQ(OutcomeOf(*c), GateOutcome::kFailed);
  // Faster passes the same gate.
  auto faster = Compare(workload::Figures(), slower, base, o);
  ASSERT_TRUE(faster.ok());
  EXPECT_FALSE(faster->gate_failed);
  EXPECT_FALSE(faster->gate_inconclusive);
  EXPECT_EQ(OutcomeOf(*faster), GateOutcome::kPassed);
  EXPECT_EQ(OutcomeOf(*Compare(workload::Figures(), slower, base, {})),
            std::nullopt);  // no gate, no outcome
  // A gate line naming no figure is bad input, with the file and line.
  o.gate = *ParseGate("tg128: -3%\ntg129: -3%\n", "release.gate");
  auto bad = Compare(workload::Figures(), base, slower, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().exit_code, 2);
  EXPECT_EQ(bad.error().message,
            "release.gate:2:1: 'tg129' names no figure this comparison has (did you mean "
            "'tg128'?)");
}

TEST(Compare, TwoRowsOfOneKeyOnASideAreAmbiguousNotAveraged) {
  const std::vector<ResultRow> a = {Row("m", "tg128", "throughput", "t/s", kBase),
                                    Row("m", "tg128", "throughput", "t/s", kFast)};
  const std::vector<ResultRow> b = {Row("m", "tg128", "throughput", "t/s", kBase)};
  auto c = Compare(workload::Figures(), a, b, {});
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->figures.empty());
  ASSERT_EQ(c->not_compared.size(), 1u);
  EXPECT_NE(c->not_compared[0].find("held by more than one row of a side"), std::string::npos);
}

ResultRow Quality(const std::string& test, const std::string& metric, const std::string& unit,
                  std::vector<double> units) {
  ResultRow r = Row("m", test, metric, unit, std::move(units));
  r.dataset_sha256 = "data";
  return r;
}

TEST(Compare, QualityFiguresArePairedOverItemsAndChunks) {
  // 40 items, the candidate losing 8 the baseline had right; ppl chunks all 10% higher.
  std::vector<double> right(40, 1.0), lost(40, 1.0);
  for (int i = 0; i < 8; ++i) lost[i] = 0.0;
  const std::vector<double> chunks = {10, 12, 9, 11, 10.5}, worse = {11, 13.2, 9.9, 12.1, 11.55};
  const std::vector<ResultRow> a = {Quality("mc", "acc", "fraction", right),
                                    Quality("ppl", "ppl", "", chunks)};
  const std::vector<ResultRow> b = {Quality("mc", "acc", "fraction", lost),
                                    Quality("ppl", "ppl", "", worse)};
  CompareOptions o;
  o.gate = *ParseGate("mc_acc: -1 point\nppl: +5%\n", "g");
  o.gate_file = "g";
  auto c = Compare(workload::Figures(), a, b, o);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->figures.size(), 2u);
  const FigureComparison& acc = c->figures[0].metric == "acc" ? c->figures[0] : c->figures[1];
  const FigureComparison& ppl = c->figures[0].metric == "acc" ? c->figures[1] : c->figures[0];
  EXPECT_EQ(acc.change.of, Change::Of::kDifference);
  EXPECT_DOUBLE_EQ(acc.change.difference, -0.2);
  EXPECT_EQ(acc.change.verdict, Verdict::kWorse) << acc.change.why;
  EXPECT_TRUE(acc.gate_failed);
  // ppl over chunks: the geometric mean of the chunks' perplexities, 10% up in every chunk.
  EXPECT_NEAR(ppl.change.ratio.value(), 1.1, 1e-9);
  EXPECT_EQ(ppl.change.verdict, Verdict::kWorse) << ppl.change.why;
  EXPECT_TRUE(ppl.gate_failed);
  // The same items scored on other data pair with nothing.
  std::vector<ResultRow> other = b;
  other[0].dataset_sha256 = "other";
  auto d = Compare(workload::Figures(), a, other, {});
  ASSERT_TRUE(d.ok());
  for (const FigureComparison& f : d->figures) {
    if (f.metric == "acc") {
      EXPECT_EQ(f.change.verdict, Verdict::kTooNoisy) << f.change.why;
    }
  }
}

TEST(Compare, AGatedFigureTheCandidateLacksFailsTheGate) {
  const std::vector<ResultRow> a = {Row("m", "tg128", "throughput", "t/s", kBase),
                                    Row("m", "pp512", "throughput", "t/s", kBase)};
  ResultRow na = Row("m", "tg128", "throughput", "t/s", {});
  na.na_reason = "the runtime does not serve tg";
  const std::vector<ResultRow> b = {na, Row("m", "pp512", "throughput", "t/s", kBase)};
  CompareOptions o;
  o.gate = *ParseGate("tg128: -3%\n", "g");
  o.gate_file = "g";
  auto c = Compare(workload::Figures(), a, b, o);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->gate_failed);
  const FigureComparison& f = c->figures[0].test == "tg128" ? c->figures[0] : c->figures[1];
  EXPECT_EQ(f.missing, "n/a in the candidate: the runtime does not serve tg");
  EXPECT_TRUE(f.gate_failed);
  // Without a gate the figure is listed, not compared, and nothing fails.
  auto plain = Compare(workload::Figures(), a, b, {});
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->gate_failed);
  ASSERT_EQ(plain->not_compared.size(), 1u);
  EXPECT_NE(plain->not_compared[0].find("n/a in the candidate"), std::string::npos);
  // A gated figure the candidate does not have at all fails likewise.
  auto gone = Compare(workload::Figures(), a, {b[1]}, o);
  ASSERT_TRUE(gone.ok());
  EXPECT_TRUE(gone->gate_failed);
  EXPECT_EQ(gone->figures[0].change.baseline, 50.0);  // the baseline's median, shown
}

// A gated quality figure the candidate lacks shows the baseline's figure over every unit (the
// proportion 0.75), not the median of its 0/1 items.
TEST(Compare, AMissingGatedProportionShowsTheBaselinesProportion) {
  ResultRow acc = Row("m", "mc", "acc", "fraction", {1, 1, 1, 0});
  acc.value = 0.75;
  acc.dataset_sha256 = "items";
  CompareOptions o;
  o.gate = *ParseGate("mc_acc: -1 point\n", "g");
  o.gate_file = "g";
  auto c = Compare(workload::Figures(), {acc}, {}, o);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->figures.size(), 1u);
  EXPECT_TRUE(c->gate_failed);
  EXPECT_EQ(c->figures[0].change.baseline, 0.75);
  EXPECT_EQ(c->figures[0].change.of, Change::Of::kDifference);
}

TEST(Compare, GateLinesMustAllowTheBadWayOnlyAndTheMostSpecificApplies) {
  const std::vector<ResultRow> a = {Row("m", "tg128", "throughput", "t/s", kBase),
                                    Row("m", "tg128", "itl_p50", "ms", kBase)};
  struct Case {
    const char* gate;
    const char* message;
  } cases[] = {
      {"tg128: +3%\n",
       "g:1:8: 'tg128: +3%': tg128 gets better as it rises; its limit says how far it may fall: "
       "write -3%"},
      {"itl_p50: -10%\n",
       "g:1:10: 'itl_p50: -10%': itl_p50 gets better as it falls; its limit says how far it may "
       "rise: write +10%"},
      {"tg128: -1 point\n",
       "g:1:8: 'tg128: -1 point': a point is a percentage point of a proportion (acc, "
       "format_ok); give tg128's limit in % (-3%) or as a plain number in t/s (-2)"},
  };
  for (const Case& k : cases) {
    CompareOptions o;
    o.gate = *ParseGate(k.gate, "g");
    o.gate_file = "g";
    auto c = Compare(workload::Figures(), a, a, o);
    ASSERT_FALSE(c.ok()) << k.gate;
    EXPECT_EQ(c.error().exit_code, 2);
    EXPECT_EQ(c.error().message, k.message);
  }
  // "tg128.throughput" is more specific than "tg128": it applies, and the other counts as used.
  CompareOptions o;
  o.gate = *ParseGate("tg128: -3%\ntg128.throughput: -10%\n", "g");
  o.gate_file = "g";
  auto c = Compare(workload::Figures(), a, a, o);
  ASSERT_TRUE(c.ok()) << c.error().message;
  for (const FigureComparison& f : c->figures) {
    if (f.metric == "throughput") {
      ASSERT_TRUE(f.gate.has_value());
      EXPECT_EQ(f.gate->text, "-10%");
    } else {
      EXPECT_FALSE(f.gate.has_value());  // itl_p50 is not tg128's headline
    }
  }
}

TEST(Compare, LabelsKeepKeysOnlySomeFiguresHaveAndPairOnNamesTheKeysThatMatter) {
  ResultRow en = Quality("mc", "acc", "fraction", {1, 0, 1, 1});
  en.subset = "en";
  const std::vector<ResultRow> a = {Quality("mc", "acc", "fraction", {1, 0, 1, 1}), en};
  auto c = Compare(workload::Figures(), a, a, {});
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->figures.size(), 2u);
  EXPECT_EQ(c->figures[0].label, "test=mc");
  EXPECT_EQ(c->figures[1].label, "test=mc subset=en");
  EXPECT_EQ(c->common.find("subset"), std::string::npos) << c->common;
  // --pair-on quant: every other key (the model, the runtime's version, threads) may differ.
  std::vector<ResultRow> b = {Row("new", "tg128", "throughput", "t/s", kFast, 4)};
  b[0].EditCell().runtime_version = "b2";
  CompareOptions o;
  o.pair_on = {"quant"};
  auto p = Compare(workload::Figures(), {Row("old", "tg128", "throughput", "t/s", kBase)}, b, o);
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->figures.size(), 1u);
  EXPECT_EQ(p->ignored,
            (std::vector<std::string>{"device", "model", "runtime", "runtime_version", "threads"}));
  o.ignore = {"model"};
  EXPECT_FALSE(Compare(workload::Figures(), a, a, o).ok());  // not both
}

// A gate line the data cannot decide is inconclusive, never passed: two repetitions a side (the
// speed more than halved, but too few samples to say), with why.
TEST(Compare, AGateLineTheDataCannotDecideIsInconclusiveNeverPassed) {
  CompareOptions o = Gated("tg16: -3%\n");
  ResultRow a = Row("m", "tg16", "throughput", "t/s", {88.0, 88.4});
  ResultRow b = Row("m", "tg16", "throughput", "t/s", {34.4, 34.6});
  b.EditCell().cell_index = 1;
  auto c = Compare(workload::Figures(), {a}, {b}, o);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->figures.size(), 1u);
  const FigureComparison& f = c->figures[0];
  EXPECT_EQ(f.change.verdict, Verdict::kTooNoisy);
  EXPECT_FALSE(f.gate_failed);
  EXPECT_EQ(f.gate_inconclusive, "too few samples: fewer than 3 samples a side (2 and 2)");
  EXPECT_FALSE(c->gate_failed);
  EXPECT_TRUE(c->gate_inconclusive);
  EXPECT_EQ(OutcomeOf(*c), GateOutcome::kInconclusive);
  // Noisy samples whose interval still lies within the line's limit decide it: passed.
  ResultRow steady = Row("m", "tg16", "throughput", "t/s", {100, 101, 99, 100.5, 99.5, 100.2});
  ResultRow noisy = Row("m", "tg16", "throughput", "t/s", {100, 115, 99.8, 130, 101, 120});
  noisy.EditCell().cell_index = 1;
  auto n = Compare(workload::Figures(), {steady}, {noisy}, o);
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(n->figures[0].change.verdict, Verdict::kTooNoisy) << n->figures[0].change.why;
  EXPECT_EQ(n->figures[0].gate_inconclusive, "");
  EXPECT_EQ(OutcomeOf(*n), GateOutcome::kPassed);
  // The same noise the other way reaches past the limit: not decided.
  auto back = Compare(workload::Figures(), {noisy}, {steady}, o);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->figures[0].change.verdict, Verdict::kTooNoisy);
  EXPECT_EQ(back->figures[0].gate_inconclusive.rfind("too noisy: ", 0), 0u)
      << back->figures[0].gate_inconclusive;
  EXPECT_EQ(OutcomeOf(*back), GateOutcome::kInconclusive);
  // A failed line takes precedence over an undecided one.
  o.gate = *ParseGate("tg16: -3%\ntg128: -3%\n", "g");
  auto both = Compare(workload::Figures(), {a, Row("m", "tg128", "throughput", "t/s", kFast)},
                      {b, Row("m", "tg128", "throughput", "t/s", kBase)}, o);
  ASSERT_TRUE(both.ok()) << both.error().message;
  EXPECT_TRUE(both->gate_inconclusive);
  EXPECT_EQ(OutcomeOf(*both), GateOutcome::kFailed);
}

// One store's run compared with itself: every figure is the same cell's samples on both sides,
// which the comparison says, and no gate line passes on them. Two configurations of one run
// (different cells) are a real comparison.
TEST(Compare, TheSameCellsOnBothSidesDecideNoGateLine) {
  CompareOptions o = Gated("tg128: -3%\n");
  const std::vector<ResultRow> a = {Row("m", "tg128", "throughput", "t/s", kBase)};
  auto c = Compare(workload::Figures(), a, a, o);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->figures.size(), 1u);
  EXPECT_TRUE(c->figures[0].same_cells);
  EXPECT_EQ(c->same_cells, 1u);
  EXPECT_EQ(c->figures[0].gate_inconclusive,
            "the same cells on both sides: a figure compared with itself");
  EXPECT_EQ(OutcomeOf(*c), GateOutcome::kInconclusive);
  // The same run's other cell (threads=4 ignored): compared, and the gate decides.
  ResultRow other = Row("m", "tg128", "throughput", "t/s", kBase, 4);
  other.EditCell().cell_index = 1;
  o.ignore = {"threads"};
  auto ab = Compare(workload::Figures(), a, {other}, o);
  ASSERT_TRUE(ab.ok()) << ab.error().message;
  EXPECT_FALSE(ab->figures[0].same_cells);
  EXPECT_EQ(ab->same_cells, 0u);
  EXPECT_EQ(OutcomeOf(*ab), GateOutcome::kPassed);
}

// A cell measured while another Pipette measured: its verdict is shown, marked, and the gate
// line on it is undecided (not failed, although the figure is far worse).
TEST(Compare, AFigureMeasuredUnderAWarningIsMarkedAndDecidesNoGateLine) {
  CompareOptions o = Gated("tg128: -3%\n");
  ResultRow base = Row("m", "tg128", "throughput", "t/s", kFast);
  ResultRow cand = Row("m", "tg128", "throughput", "t/s", kBase);
  cand.EditCell().run_id = 2;
  cand.EditCell().untrusted = "measured while 1 other Pipette measured on the machine (pid 7)";
  auto c = Compare(workload::Figures(), {base}, {cand}, o);
  ASSERT_TRUE(c.ok()) << c.error().message;
  const FigureComparison& f = c->figures[0];
  EXPECT_EQ(f.change.verdict, Verdict::kWorse);
  EXPECT_EQ(f.untrusted,
            "candidate: measured while 1 other Pipette measured on the machine (pid 7)");
  EXPECT_FALSE(f.gate_failed);
  EXPECT_EQ(f.gate_inconclusive.rfind("measured under a warning (candidate: ", 0), 0u)
      << f.gate_inconclusive;
  EXPECT_EQ(OutcomeOf(*c), GateOutcome::kInconclusive);
}

// A side's figure without a valid sample (a JSON report's empty list, or a null there) is
// missing, never a median of 0: the candidate's fails its gate line, the baseline's leaves it
// undecided.
TEST(Compare, AFigureWithoutAValidSampleIsMissingNotZero) {
  CompareOptions o = Gated("tg128: -3%\n");
  ResultRow base = Row("m", "tg128", "throughput", "t/s", kBase);
  for (const std::vector<double>& samples :
       {std::vector<double>{}, std::vector<double>{50.0, std::nan(""), 50.2}}) {
    ResultRow cand = Row("m", "tg128", "throughput", "t/s", samples);
    cand.EditCell().run_id = 2;
    auto c = Compare(workload::Figures(), {base}, {cand}, o);
    ASSERT_TRUE(c.ok()) << c.error().message;
    ASSERT_EQ(c->figures.size(), 1u);
    EXPECT_EQ(c->figures[0].missing.rfind("no valid figure in the candidate: ", 0), 0u)
        << c->figures[0].missing;
    EXPECT_TRUE(c->figures[0].gate_failed);
    EXPECT_EQ(OutcomeOf(*c), GateOutcome::kFailed);
    EXPECT_EQ(c->figures[0].change.baseline, 50.0);
    // Without a gate: not compared, and said why.
    auto plain = Compare(workload::Figures(), {base}, {cand}, {});
    ASSERT_TRUE(plain.ok());
    EXPECT_TRUE(plain->figures.empty());
    ASSERT_EQ(plain->not_compared.size(), 1u);
    // The baseline's: undecided.
    auto back = Compare(workload::Figures(), {cand}, {base}, o);
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_EQ(back->figures.size(), 1u);
    EXPECT_FALSE(back->figures[0].gate_failed);
    EXPECT_EQ(back->figures[0].gate_inconclusive.rfind(
                  "missing on one side: no valid figure in the baseline: ", 0),
              0u)
        << back->figures[0].gate_inconclusive;
    EXPECT_EQ(OutcomeOf(*back), GateOutcome::kInconclusive);
  }
}

}  // namespace
}  // namespace pipette::compare
