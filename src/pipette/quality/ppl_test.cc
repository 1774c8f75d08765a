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
  // As llama-perplexity: positions 256..510 predict the targets 257..511, 255 of them.
  EXPECT_EQ(c[1].from, 256);
  EXPECT_EQ(ScoredPerChunk(512), 255);
  EXPECT_EQ(c[1].n_ctx - 1 - c[1].from, ScoredPerChunk(512));
  EXPECT_EQ(PplChunks(1300, 512, 1).size(), 1u);
  EXPECT_TRUE(PplChunks(100, 512, 0).empty());
}

TEST(Ppl, ChunkStartsWithBosReplacedNotInserted) {
  std::vector<int64_t> corpus{1, 10, 11, 12, 13, 14, 15, 16};  // BOS 1, then the text
  const auto chunks = PplChunks(static_cast<int64_t>(corpus.size()), 4, 0);
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(ChunkTokens(corpus, chunks[0], 1), (std::vector<int64_t>{1, 10, 11, 12}));
  // The second chunk's first text token (13) gives way to BOS; the chunk keeps 4 tokens.
  EXPECT_EQ(ChunkTokens(corpus, chunks[1], 1), (std::vector<int64_t>{1, 14, 15, 16}));
  // A tokenizer that adds no BOS: the chunk as it is.
  EXPECT_EQ(ChunkTokens(corpus, chunks[1], -1), (std::vector<int64_t>{13, 14, 15, 16}));
}

TEST(Ppl, CorpusLosesOneFinalNewlineAsLlamaToolsReadIt) {
  EXPECT_EQ(CorpusText("a\nb\n\n"), "a\nb\n");
  EXPECT_EQ(CorpusText("a b"), "a b");
  EXPECT_EQ(CorpusText(""), "");
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
