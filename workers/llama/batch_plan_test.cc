#include "batch_plan.h"

#include <gtest/gtest.h>

namespace pipette::llama_worker {
namespace {

std::vector<int64_t> Counts(int64_t n, int64_t n_batch) {
  std::vector<int64_t> out;
  int64_t next = 0;
  for (const BatchSpan& b : BatchSpans(n, n_batch)) {
    EXPECT_EQ(b.start, next);  // consecutive, none skipped
    next = b.start + b.count;
    out.push_back(b.count);
  }
  EXPECT_EQ(next, n);
  return out;
}

TEST(BatchSpans, CutsASequenceIntoFullBatchesAndAShorterLast) {
  EXPECT_EQ(Counts(10, 4), (std::vector<int64_t>{4, 4, 2}));
  EXPECT_EQ(Counts(8, 4), (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(Counts(3, 512), (std::vector<int64_t>{3}));
  EXPECT_EQ(Counts(5, 1), (std::vector<int64_t>{1, 1, 1, 1, 1}));
  EXPECT_TRUE(BatchSpans(0, 4).empty());
}

TEST(ScoredPosition, ReadsFromTheFirstScoredPositionToTheLastButOne) {
  // 6 tokens scored from 3: positions 3 and 4 predict tokens 4 and 5; position 5 has no next.
  std::vector<int64_t> read;
  for (int64_t pos = 0; pos < 6; ++pos) {
    if (ScoredPosition(pos, 3, 6)) read.push_back(pos);
  }
  EXPECT_EQ(read, (std::vector<int64_t>{3, 4}));
  EXPECT_TRUE(ScoredPosition(0, 0, 2));
  EXPECT_FALSE(ScoredPosition(1, 0, 2));
}

}  // namespace
}  // namespace pipette::llama_worker
