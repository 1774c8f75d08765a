#include "pipette/estimate/work.h"

#include <gtest/gtest.h>

namespace pipette::estimate {
namespace {

TEST(Work, GuessedChunks) {
  EXPECT_EQ(GuessChunks(4 * 512 * 10 + 7, 512, 0), 10);  // all: 4 bytes per token
  EXPECT_EQ(GuessChunks(4 * 512 * 10, 512, 3), 3);
  EXPECT_EQ(GuessChunks(100, 512, 3), 1);  // a short corpus: at least one
  EXPECT_EQ(GuessChunks(0, 512, 3), 3);    // size unknown: what was asked
}

TEST(Work, ItemsAreTheLimitOfTheSet) {
  EXPECT_EQ(Items(0, 40), 40);
  EXPECT_EQ(Items(10, 40), 10);
  EXPECT_EQ(Items(100, 40), 40);
}

}  // namespace
}  // namespace pipette::estimate
