#include "pipette/compare/gate.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "pipette/testing/paths.h"

namespace pipette::compare {
namespace {

TEST(Gate, EachFormOfChangeParses) {
  auto g = ParseGate(
      "# release gate\n"
      "tg128: -3%\n"
      "peak_rss: +5%   # memory\n"
      "\n"
      "mc_acc: -1 point\n"
      "kld_mean: +0.01\n"
      "format_ok: -0\n"
      "ttft@512: +10 %\r\n",
      "release.gate");
  ASSERT_TRUE(g.ok()) << g.error().message;
  ASSERT_EQ(g->size(), 6u);
  EXPECT_EQ((*g)[0].figure, "tg128");
  EXPECT_EQ((*g)[0].kind, GateLine::Kind::kRelative);
  EXPECT_DOUBLE_EQ((*g)[0].limit, -0.03);
  EXPECT_EQ((*g)[0].line, 2);
  EXPECT_DOUBLE_EQ((*g)[1].limit, 0.05);
  EXPECT_EQ((*g)[2].kind, GateLine::Kind::kAbsolute);
  EXPECT_DOUBLE_EQ((*g)[2].limit, -0.01);
  EXPECT_TRUE((*g)[2].point);
  EXPECT_FALSE((*g)[3].point);
  EXPECT_EQ((*g)[2].change_column, 9);
  EXPECT_EQ((*g)[2].line, 5);
  EXPECT_DOUBLE_EQ((*g)[3].limit, 0.01);
  EXPECT_TRUE((*g)[4].negative);
  EXPECT_EQ((*g)[4].limit, 0.0);
  EXPECT_EQ((*g)[5].figure, "ttft@512");
  EXPECT_DOUBLE_EQ((*g)[5].limit, 0.10);
}

TEST(Gate, ATasksFigureIsNamedWithItsOwnColon) {
  auto g = ParseGate("task:mmlu_5shot: -1 point\ntask:gsm8k.exact_match_strict: -2 points\n",
                     "tasks.gate");
  ASSERT_TRUE(g.ok()) << g.error().message;
  ASSERT_EQ(g->size(), 2u);
  EXPECT_EQ((*g)[0].figure, "task:mmlu_5shot");
  EXPECT_DOUBLE_EQ((*g)[0].limit, -0.01);
  EXPECT_TRUE((*g)[0].point);
  EXPECT_EQ((*g)[1].figure, "task:gsm8k.exact_match_strict");
  EXPECT_EQ((*g)[1].change_column, 32);
}

TEST(Gate, MalformedLinesNameTheFileLineAndColumnWithTheFormExpected) {
  const std::string form =
      "expected 'FIGURE: CHANGE', the change one of -3%, +5%, -1 point, +0.01 or -0";
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"tg128 -3%\n", "g:1:1: no ':' after the figure: "},
      {"tg128: 3%\n", "g:1:8: '3%' has no sign (+ or -): "},
      {"ok: -1%\ntg128: -x%\n", "g:2:9: 'x%' is not a number: "},
      {"tg128: -3 percent\n",
       "g:1:11: 'percent' is not a unit of change (%, point; a change in the figure's own unit is "
       "a plain number: -2, not -2 percent): "},
      {"  tg 128: -3%\n", "g:1:3: 'tg 128' is not a figure's name: "},
      {"tg128:\n", "g:1:7: no change after ':': "},
      {"tg128: -3%\ntg128: -5%\n", "g:2:1: 'tg128' has a line already (line 1): "},
  };
  for (const Case& c : cases) {
    auto g = ParseGate(c.text, "g");
    ASSERT_FALSE(g.ok()) << c.text;
    EXPECT_EQ(g.error().message, c.message + form) << c.text;
    EXPECT_EQ(g.error().exit_code, 2);
  }
  auto empty = ParseGate("# nothing\n\n", "g");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message, "g: the gate has no line: " + form);
}

// A gate file written by an editor that starts it with a UTF-8 byte-order mark reads as any
// other (every other input file accepts one).
TEST(Gate, AByteOrderMarkIsSkipped) {
  auto g = ParseGate("\xEF\xBB\xBFtg128: -3%\npeak_rss: +5%\n", "g");
  ASSERT_TRUE(g.ok()) << g.error().message;
  ASSERT_EQ(g->size(), 2u);
  EXPECT_EQ((*g)[0].figure, "tg128");
  EXPECT_EQ((*g)[0].change_column, 8);
}

// A change of white space alone that " \t" does not skip (a vertical tab) is no change, never a
// read past the text (fuzz/regressions/gate: found by fuzz/gate_fuzz.cc under ASan).
TEST(Gate, AChangeOfOnlyWhiteSpaceIsNoChange) {
  auto g = ParseGate("tg128:\v", "g");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("no change after ':'"), std::string::npos) << g.error().message;
}

// The advice for a limit in the figure's own unit is a form the parser takes: a plain number.
TEST(Gate, ALimitInTheFiguresOwnUnitIsAPlainNumber) {
  auto g = ParseGate("tg128: -2\n", "g");
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ((*g)[0].kind, GateLine::Kind::kAbsolute);
  EXPECT_TRUE(PastLimit((*g)[0], 50, 47.5));
  EXPECT_FALSE(PastLimit((*g)[0], 50, 48.5));
  auto unit = ParseGate("tg128: -2 t/s\n", "g");
  ASSERT_FALSE(unit.ok());
  EXPECT_NE(unit.error().message.find("a plain number: -2, not -2 t/s"), std::string::npos)
      << unit.error().message;
}

TEST(Gate, ALimitIsPastOnlyInItsDirection) {
  auto g = ParseGate("tg128: -3%\npeak_rss: +5%\nmc_acc: -1 point\nformat_ok: -0\n", "g");
  ASSERT_TRUE(g.ok());
  const GateLine& tg = (*g)[0];
  EXPECT_FALSE(PastLimit(tg, 100, 97));  // exactly the limit
  EXPECT_TRUE(PastLimit(tg, 100, 96.9));
  EXPECT_FALSE(PastLimit(tg, 100, 150));  // faster is never past a "-" limit
  const GateLine& rss = (*g)[1];
  EXPECT_TRUE(PastLimit(rss, 100, 105.5));
  EXPECT_FALSE(PastLimit(rss, 100, 50));
  const GateLine& acc = (*g)[2];
  EXPECT_FALSE(PastLimit(acc, 0.50, 0.495));
  EXPECT_TRUE(PastLimit(acc, 0.50, 0.485));
  const GateLine& fmt_ok = (*g)[3];
  EXPECT_FALSE(PastLimit(fmt_ok, 1.0, 1.0));
  EXPECT_TRUE(PastLimit(fmt_ok, 1.0, 0.99));
}

// The gate files shipped in examples/gates parse.
TEST(Gate, TheShippedGateFilesParse) {
  for (const char* name : {"release.gate", "ci.gate"}) {
    const std::string path = pipette::testing::SourceDir() + "/examples/gates/" + name;
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in) << path;
    std::stringstream text;
    text << in.rdbuf();
    auto g = ParseGate(text.str(), path);
    ASSERT_TRUE(g.ok()) << g.error().message;
    EXPECT_GE(g->size(), 3u) << name;
  }
}

}  // namespace
}  // namespace pipette::compare
