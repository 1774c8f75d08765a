#include "pipette/select/constraint.h"

#include <gtest/gtest.h>

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
  };
  for (const Case& k : cases) {
    auto c = ParseConstraint(k.text, "p.yaml", 3, 9);
    ASSERT_TRUE(c.ok()) << k.text << ": " << c.error().message;
    EXPECT_EQ(c->figure, k.figure) << k.text;
    EXPECT_EQ(c->op, k.op) << k.text;
    EXPECT_DOUBLE_EQ(c->bound, k.bound) << k.text;
    EXPECT_EQ(c->kind, k.kind) << k.text;
    EXPECT_EQ(c->text, k.text);
  }
  auto c = ParseConstraint("tg128 >= 15 t/s", "p", 1, 1);
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
    auto c = ParseConstraint(k.text, "p", 3, 9);
    ASSERT_FALSE(c.ok()) << k.text;
    EXPECT_EQ(c.error().exit_code, 2);
    EXPECT_EQ(c.error().message, k.message + form) << k.text;
  }
}

}  // namespace
}  // namespace pipette::select
