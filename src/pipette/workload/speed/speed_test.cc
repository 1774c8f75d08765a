#include "pipette/workload/speed/speed.h"

#include <gtest/gtest.h>

#include "pipette/config/parse.h"
#include "pipette/workload/ppl/spec.h"
#include "pipette/workload/registry.h"

namespace pipette::workload {
namespace {

config::Experiment WithTests(const std::vector<std::string>& names) {
  config::Experiment ex;
  for (const std::string& n : names) ex.tests.push_back(*config::ParseTestName(n));
  return ex;
}

TEST(Speed, OnePhasePerTestWithItsOps) {
  const auto speed = NewSpeed();
  const auto phases = speed->Phases(WithTests({"pp16", "tg4", "ttft@32"}));
  ASSERT_EQ(phases.size(), 3u);
  EXPECT_EQ(phases[0].name, "pp16");
  EXPECT_EQ(phases[0].ops, (std::vector<std::string>{"pp"}));
  EXPECT_EQ(phases[1].ops, (std::vector<std::string>{"tg"}));
  EXPECT_EQ(phases[2].ops, (std::vector<std::string>{"ttft", "tokenize"}));
  EXPECT_TRUE(speed->Phases(config::Experiment{}).empty());
}

TEST(Speed, ItsContextNeedFitsTheLargestTest) {
  const auto tests = WithTests({"pp512", "tg128", "ttft@64"}).tests;
  EXPECT_EQ(TokensNeeded(tests, 0), 512);
  // At a depth pp and tg both follow its tokens: pp512 after 1000 needs 1512.
  EXPECT_EQ(TokensNeeded(tests, 1000), 1512);
  EXPECT_EQ(TokensNeeded(WithTests({"tg128", "ttft@64"}).tests, 1000), 1129);
}

// The context need of an experiment is the most any registered workload needs.
TEST(Speed, TheRegistrysContextNeedIsTheLargestWorkloads) {
  config::Experiment ex = WithTests({"pp64"});
  EXPECT_EQ(ContextNeed(ex, 0), 64);
  PplSpec ppl;
  ppl.n_ctx = 512;
  SetPplSpec(&ex, ppl);
  EXPECT_EQ(ContextNeed(ex, 0), 512);
  EXPECT_EQ(ContextNeed(ex, 1000), 1064);  // pp64 after the depth's 1000 tokens
  ex.tests.push_back(*config::ParseTestName("tg8"));
  EXPECT_EQ(ContextNeed(ex, 1000), 1064);
  ex.tests = {*config::ParseTestName("tg8")};
  EXPECT_EQ(ContextNeed(ex, 1000), 1009);
}

}  // namespace
}  // namespace pipette::workload
