// The grammar of `tests:` the speed test kinds make (test_kinds.h): each kind's names, the
// canonical forms, and the messages of a name written wrong.
#include "pipette/workload/speed/test_kinds.h"

#include <gtest/gtest.h>

namespace pipette::workload {
namespace {

TEST(TestNames, ParseAndCanonicalize) {
  auto t = ParseTestName("tg128");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->kind, "tg");
  EXPECT_EQ(t->n, 128);
  EXPECT_FALSE(ParseTestName("tg").ok());
  EXPECT_FALSE(ParseTestName("tg12x").ok());
  EXPECT_FALSE(ParseTestName("ttft@-3").ok());
  EXPECT_EQ(ParseTestName("ttft@256")->name, "ttft@256");
  // The limit, and past it (also past what an int holds): "too large", not "not a number".
  EXPECT_EQ(ParseTestName("tg16777216")->n, 16777216);
  EXPECT_EQ(ParseTestName("tg16777217").error().message,
            "test 'tg16777217' asks for 16777217 tokens: a test takes at most 16777216 (2^24)");
  EXPECT_NE(ParseTestName("pp99999999999999999999").error().message.find("at most 16777216"),
            std::string::npos);
  EXPECT_NE(ParseTestName("tg").error().message.find("needs a whole number of tokens after 'tg'"),
            std::string::npos);
  EXPECT_NE(ParseTestName("ttft@-3").error().message.find("positive"), std::string::npos);
}

TEST(TestNames, SustainedTakesSecondsForTwoWindowsAtLeast) {
  auto t = ParseTestName("sustained60");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->kind, "sustained");
  EXPECT_EQ(t->n, 60);
  EXPECT_EQ(t->name, "sustained60");
  const std::string why =
      "needs whole seconds from 20 (two 10 s windows: the decay compares the first and the "
      "last) to 86400, e.g. sustained60";
  EXPECT_EQ(ParseTestName("sustained19").error().message, "test 'sustained19' " + why);
  EXPECT_EQ(ParseTestName("sustained").error().message, "test 'sustained' " + why);
  EXPECT_EQ(ParseTestName("sustained1m").error().message, "test 'sustained1m' " + why);
  EXPECT_FALSE(ParseTestName("sustained86401").ok());
}

TEST(TestNames, E2eTakesAPromptAndAGeneration) {
  auto t = ParseTestName("e2e@128+64");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->kind, "e2e");
  EXPECT_EQ(t->prompt, 128);
  EXPECT_EQ(t->n, 64);
  EXPECT_EQ(t->name, "e2e@128+64");
  EXPECT_EQ(ParseTestName("e2e@0128+064")->name, "e2e@128+64");  // canonical
  EXPECT_EQ(ParseTestName("e2e@128").error().message,
            "test 'e2e@128' needs a prompt and a generation, e2e@<P>+<N>, e.g. e2e@128+64");
  EXPECT_EQ(ParseTestName("e2e@0+4").error().message,
            "test 'e2e@0+4' needs a positive whole number of tokens for the prompt (P), e.g. "
            "e2e@128+64");
  EXPECT_EQ(ParseTestName("e2e@4+x").error().message,
            "test 'e2e@4+x' needs a positive whole number of tokens for the generation (N), e.g. "
            "e2e@128+64");
  EXPECT_EQ(ParseTestName("e2e@16777216+1").error().message,
            "test 'e2e@16777216+1' asks for 16777217 tokens: a test takes at most 16777216 (2^24)");
}

TEST(TestNames, ANameNoKindReadsListsEveryKind) {
  EXPECT_EQ(ParseTestName("xx12").error().message,
            "unknown test 'xx12' (tests: pp<N>, tg<N>, ttft@<P>, e2e@<P>+<N>, "
            "sustained<seconds>, e.g. pp512, tg128, ttft@256, e2e@128+64, sustained60)");
  EXPECT_EQ(ParseTestName("xx12").error().exit_code, 2);
  // "ppl" is pp's to read, and wrong: the message is pp's.
  EXPECT_NE(ParseTestName("ppl").error().message.find("after 'pp'"), std::string::npos);
}

TEST(TestNames, EveryKindNamesItsOpsAndFigures) {
  for (const speed::TestKind& k : speed::TestKinds()) {
    EXPECT_FALSE(k.ops.empty()) << k.name;
    EXPECT_TRUE(k.request || k.run) << k.name;
    EXPECT_FALSE(k.figures().empty()) << k.name;
    auto t = ParseTestName(k.example);
    ASSERT_TRUE(t.ok()) << k.example;
    EXPECT_EQ(t->kind, k.name);
    EXPECT_EQ(speed::KindOf(*t, speed::TestKinds()), &k);
  }
}

}  // namespace
}  // namespace pipette::workload
