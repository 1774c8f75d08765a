#include "pipette/workload/speed/random_tokens.h"

#include <gtest/gtest.h>

namespace pipette::workload {
namespace {

TEST(RandomTokens, SameSeedAndSaltSameIdsWithinTheVocabulary) {
  const auto a = RandomTokens(42, "pp16", 16, 100);
  EXPECT_EQ(a, RandomTokens(42, "pp16", 16, 100));
  EXPECT_NE(a, RandomTokens(42, "pp32", 16, 100));
  EXPECT_NE(a, RandomTokens(43, "pp16", 16, 100));
  for (int64_t t : a) {
    EXPECT_GE(t, 0);
    EXPECT_LT(t, 100);
  }
}

// Every stored run so far drew its prompts with this generator: the ids must not change
// (SplitMix64 after an FNV-1a style mix of the salt, modulo the vocabulary size).
TEST(RandomTokens, FixedIds) {
  EXPECT_EQ(RandomTokens(1, "", 3, 1000), (std::vector<int64_t>{465, 519, 590}));
  EXPECT_EQ(RandomTokens(42, "pp16", 4, 49152), (std::vector<int64_t>{24644, 27621, 35659, 42343}));
}

}  // namespace
}  // namespace pipette::workload
