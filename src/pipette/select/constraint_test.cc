#include "pipette/select/constraint.h"

#include <gtest/gtest.h>

#include "pipette/workload/registry.h"

namespace pipette::select {
namespace {

TEST(Constraint, EachFormOfBoundParsesIntoTheFiguresUnit) {
  struct Case {
    const char* text;
    const char* figure;
    Constraint::Op op;
    double bound;
    Constraint::Kind kind;
  } cases[] = {
      {"peak_rss <= 1.5GiB", "peak_rss", Constraint::Op::kLe, 1.5 * 1024 * 1024 * 1024,
       Constraint::Kind::kBytes},
      {"peak_rss<800MB", "peak_rss", Constraint::Op::kLt, 800e6, Constraint::Kind::kBytes},
      {"ttft@512 <= 800ms", "ttft@512", Constraint::Op::kLe, 800, Constraint::Kind::kTime},
      {"ttft@512 <= 1.5 s", "ttft@512", Constraint::Op::kLe, 1500, Constraint::Kind::kTime},
      {"tg128 >= 15 t/s", "tg128", Constraint::Op::kGe, 15, Constraint::Kind::kRate},
      {"format_ok >= 0.95", "format_ok", Constraint::Op::kGe, 0.95, Constraint::Kind::kPlain},
      {"mc_acc > 40%", "mc_acc", Constraint::Op::kGt, 0.40, Constraint::Kind::kFraction},
      // A standard task's figure: its name alone is its acc.
      {"task:mmlu_5shot >= 0.4", "task:mmlu_5shot", Constraint::Op::kGe, 0.4,
       Constraint::Kind::kPlain},
      {"task:gsm8k.exact_match_strict >= 5%", "task:gsm8k.exact_match_strict", Constraint::Op::kGe,
       0.05, Constraint::Kind::kFraction},
  };
  for (const Case& k : cases) {
    auto c = ParseConstraint(k.text, "p.yaml", 3, 9, &workload::Figures());
    ASSERT_TRUE(c.ok()) << k.text << ": " << c.error().message;
    EXPECT_EQ(c->figure, k.figure) << k.text;
    EXPECT_EQ(c->op, k.op) << k.text;
    EXPECT_DOUBLE_EQ(c->bound, k.bound) << k.text;
    EXPECT_EQ(c->kind, k.kind) << k.text;
    EXPECT_EQ(c->text, k.text);
  }
  auto c = ParseConstraint("tg128 >= 15 t/s", "p", 1, 1, &workload::Figures());
  EXPECT_TRUE(Holds(*c, 15));
  EXPECT_FALSE(Holds(*c, 14.9));
  EXPECT_EQ(OpText(c->op), ">=");
}

TEST(Constraint, MalformedOnesNameTheFileLineAndColumnWithTheFormExpected) {
  const std::string form =
      "expected 'FIGURE OP BOUND', OP one of <= < >= >, e.g. peak_rss <= 1.5GiB, ttft@512 <= "
      "800ms, tg128 >= 15 t/s, format_ok >= 0.95";
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"<= 5", "p:3:9: no figure's name: "},
      {"peak_rss 1.5GiB", "p:3:18: '1.' is not a comparison: "},
      {"peak_rss =< 1GiB", "p:3:18: '=<' is not a comparison: "},
      {"tg128 >=", "p:3:17: no bound after the comparison: "},
      {"tg128 >= fast", "p:3:18: 'fast' is not a number: "},
      {"ttft@512 <= 800 parsecs",
       "p:3:25: 'parsecs' is not a unit (B, KiB, MiB, GiB, MB, GB, "
       "ms, s, t/s, %): "},
      {"tg128 >= -1 t/s", "p:3:18: a bound is not negative: "},
  };
  for (const Case& k : cases) {
    auto c = ParseConstraint(k.text, "p", 3, 9, &workload::Figures());
    ASSERT_FALSE(c.ok()) << k.text;
    EXPECT_EQ(c.error().exit_code, 2);
    EXPECT_EQ(c.error().message, k.message + form) << k.text;
  }
}

// A name Pipette never reports is refused where it is written, with the near name; a known figure
// is accepted in every form a report names it by.
TEST(Constraint, AFigurePipetteNeverReportsIsRefusedWithTheNearName) {
  for (const char* ok : {"peak_rss <= 1GiB", "memory.peak_rss <= 1GiB", "mc_acc >= 0.5",
                         "gen_format_ok >= 0.9", "tg128 >= 5 t/s", "tg128.itl_p99 <= 80ms",
                         "ttft@512 <= 1s", "e2e@64+16 <= 2s", "load_time <= 3s", "ppl <= 20",
                         "kld_mean <= 0.1", "sustained60.decay <= 10%", "throughput >= 5 t/s"}) {
    auto c = ParseConstraint(ok, "p", 1, 1, &workload::Figures());
    EXPECT_TRUE(c.ok()) << ok << ": " << c.error().message;
  }
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"peak_rs <= 1MiB",
       "p:3:9: 'peak_rs <= 1MiB': 'peak_rs' is no figure Pipette reports (docs/report-schema.md: "
       "a test, a metric, or test.metric) (did you mean 'peak_rss'?)"},
      {"tg128.throughputt >= 5 t/s",
       "p:3:9: 'tg128.throughputt >= 5 t/s': 'tg128.throughputt' is no figure Pipette reports "
       "(docs/report-schema.md: a test, a metric, or test.metric) (did you mean "
       "'tg128.throughput'?)"},
      {"noise <= 0.1",
       "p:3:9: 'noise <= 0.1': 'noise' is no figure Pipette reports (docs/report-schema.md: a "
       "test, a metric, or test.metric)"},
      // A known figure in another unit than the bound's.
      {"peak_rss <= 800ms", "p:3:21: 'peak_rss <= 800ms': peak_rss is in bytes, the bound in ms"},
  };
  for (const Case& k : cases) {
    auto c = ParseConstraint(k.text, "p", 3, 9, &workload::Figures());
    ASSERT_FALSE(c.ok()) << k.text;
    EXPECT_EQ(c.error().exit_code, 2);
    EXPECT_EQ(c.error().message, k.message);
  }
}

// The range a figure can take comes from its kind: a proportion is 0 to 1 (0% to 100%), an
// amount 0 or more, a perplexity 1 or more, a fall in % at most 100%.
TEST(Constraint, ABoundNoValueOfTheFigureCanMeetIsRefusedAtTheBound) {
  struct Case {
    const char* text;
    const char* problem;
  } cases[] = {
      {"format_ok >= 1.5",
       "no value of format_ok can be >= that: it is a proportion, from 0 to "
       "1 (0% to 100%)"},
      {"mc_acc >= 150%",
       "no value of mc_acc can be >= that: it is a proportion, from 0 to 1 (0% to 100%)"},
      {"mc.acc > 1",
       "no value of mc.acc can be > that: it is a proportion, from 0 to 1 (0% to "
       "100%)"},
      {"peak_rss < 0", "no value of peak_rss can be < that: it is an amount, 0 or more"},
      {"tg128 < 0 t/s", "no value of tg128 can be < that: it is an amount, 0 or more"},
      {"ppl < 1", "no value of ppl can be < that: it is a perplexity, 1 or more"},
      {"sustained60.decay > 100%",
       "no value of sustained60.decay can be > that: it is a fall in %, at most 100%"},
  };
  for (const Case& k : cases) {
    auto c = ParseConstraint(k.text, "p", 3, 1, &workload::Figures());
    ASSERT_FALSE(c.ok()) << k.text;
    EXPECT_EQ(c.error().exit_code, 2);
    const std::string text = k.text;
    const size_t bound = text.find_first_of("0123456789", text.find_first_of("<>"));
    EXPECT_EQ(c.error().message,
              "p:3:" + std::to_string(bound + 1) + ": '" + text + "': " + k.problem);
  }
  // At the edge of the range a bound still can hold; a figure that may fall below 0 takes any.
  for (const char* ok : {"format_ok >= 1", "format_ok <= 0", "mc_acc >= 100%", "ppl <= 1",
                         "load.rss_delta < 0", "sustained60.decay <= 0%"}) {
    auto c = ParseConstraint(ok, "p", 1, 1, &workload::Figures());
    EXPECT_TRUE(c.ok()) << ok << ": " << c.error().message;
  }
}

}  // namespace
}  // namespace pipette::select
