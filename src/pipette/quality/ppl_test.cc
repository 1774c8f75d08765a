#include "pipette/quality/ppl.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pipette::quality {
namespace {

TEST(Ppl, ChunksAreWholeAndScoreTheSecondHalf) {
  auto c = PplChunks(1300, 512, 0);
  ASSERT_EQ(c.size(), 2u);  // the 276-token tail is dropped
  EXPECT_EQ(c[0].begin, 0);
  EXPECT_EQ(c[1].begin, 512);
  EXPECT_EQ(c[1].from, 255);  // positions 255..510 predict tokens 256..511: 256 scored
  EXPECT_EQ(PplChunks(1300, 512, 1).size(), 1u);
  EXPECT_TRUE(PplChunks(100, 512, 0).empty());
}

TEST(Ppl, FigureFromLogprobs) {
  // Uniform over 4 choices: every token log(1/4): ppl exactly 4, no spread.
  std::vector<double> uniform(10, std::log(0.25));
  PplFigure u = PplFromLogprobs(uniform);
  EXPECT_NEAR(u.ppl, 4.0, 1e-12);
  EXPECT_NEAR(u.std_error, 0.0, 1e-12);
  EXPECT_EQ(u.n, 10);
  // NLL {1, 3}: mean 2, sample sd sqrt(2); ppl e^2, se e^2 * sqrt(2) / sqrt(2) = e^2.
  std::vector<double> two{-1.0, -3.0};
  PplFigure t = PplFromLogprobs(two);
  EXPECT_NEAR(t.mean_nll, 2.0, 1e-12);
  EXPECT_NEAR(t.ppl, std::exp(2.0), 1e-9);
  EXPECT_NEAR(t.std_error, std::exp(2.0), 1e-9);
}

TEST(Ppl, CharactersAndDensity) {
  EXPECT_EQ(CountCodePoints("abc"), 3);
  EXPECT_EQ(CountCodePoints("héllo"), 5);
  EXPECT_EQ(CountCodePoints("中文字"), 3);
  EXPECT_DOUBLE_EQ(TokensPerKchar(250, 1000), 250.0);
  EXPECT_DOUBLE_EQ(TokensPerKchar(5, 0), 0.0);
}

}  // namespace
}  // namespace pipette::quality
