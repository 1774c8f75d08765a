#include "pipette/workload/task/answer.h"

#include <gtest/gtest.h>

namespace pipette::workload::task {
namespace {

Extractor Make(const std::string& name, const std::string& regex, bool last) {
  auto p = Pattern::Compile(regex);
  EXPECT_TRUE(p.ok()) << p.error().message;
  return {name, *p, last};
}

// GSM8K's normalisation as lm-evaluation-harness and OLMES give it (regexes_to_ignore, case).
AnswerRule Gsm8kRule() {
  AnswerRule rule;
  for (const char* re : {",", "\\$", "(?s).*#### ", "\\.$"})
    rule.ignore.push_back(*Pattern::Compile(re));
  rule.ignore_case = true;
  return rule;
}

TEST(TaskAnswer, CutsAtTheFirstStopSequence) {
  EXPECT_EQ(CutAtStop(" 6.\n\nQuestion: next", {"Question:", "\n\n"}), " 6.");
  EXPECT_EQ(CutAtStop("no stop here", {"Question:"}), "no stop here");
  EXPECT_EQ(CutAtStop("abc", {}), "abc");
  EXPECT_EQ(CutAtStop("Question: at once", {"Question:"}), "");
}

TEST(TaskAnswer, ExtractsTheFirstOrLastMatchAsLmEvalsRegexFilter) {
  const Extractor flexible = Make("flexible", "(-?[$0-9.,]{2,})|(-?[0-9]+)", true);
  // The last match; of its two groups, the one that matched.
  EXPECT_EQ(Extract(flexible, "3 + 4 = 7 apples, so $1,200.50 in all."), "$1,200.50");
  EXPECT_EQ(Extract(flexible, "It is 5"), "5");
  EXPECT_EQ(Extract(flexible, "no number"), kInvalidAnswer);
  const Extractor strict = Make("strict", "the answer is (\\-?[0-9\\.\\,]+)", false);
  EXPECT_EQ(Extract(strict, "So the answer is 18. And the answer is 19."), "18.");
  EXPECT_EQ(Extract(strict, "So The Answer Is 18."), kInvalidAnswer);  // case matters here
  const Extractor whole = Make("strict", "[0-9]+", false);
  EXPECT_EQ(Extract(whole, "a 42 b 7"), "42");  // no group: the whole match
  const Extractor empty = Make("strict", "x([0-9]*)", true);
  EXPECT_EQ(Extract(empty, "x1 x"), "");  // one group that matched nothing: empty, as findall
}

TEST(TaskAnswer, NormalisesAnswerAndTargetAlike) {
  const AnswerRule rule = Gsm8kRule();
  EXPECT_EQ(Normalise(rule, "Janet sells 16 - 3 - 4 = 9.\nShe makes $18.\n#### 18"), "18");
  EXPECT_EQ(Normalise(rule, "$1,200."), "1200");
  EXPECT_EQ(Normalise(rule, "18.0"), "18.0");  // not a number compare: lm-eval's exact match
  EXPECT_EQ(Normalise(rule, "ABC"), "abc");
}

TEST(TaskAnswer, ABadPatternIsNamed) {
  auto p = Pattern::Compile("(unclosed");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().exit_code, 2);
  EXPECT_NE(p.error().message.find("'(unclosed' is not valid"), std::string::npos)
      << p.error().message;
  // RE2 runs in linear time: no backreference, no catastrophic backtracking.
  EXPECT_FALSE(Pattern::Compile("(a)\\1").ok());
  const Extractor slow = Make("strict", "(a+)+$", false);
  EXPECT_EQ(Extract(slow, std::string(100000, 'a') + "b"), kInvalidAnswer);
}

}  // namespace
}  // namespace pipette::workload::task
