#include "pipette/workload/token_agreement.h"

#include <gtest/gtest.h>

namespace pipette::workload {
namespace {

TEST(TokenAgreement, TheSameListsAgree) {
  EXPECT_EQ(FirstTokenDifference({1, 2, 3}, {1, 2, 3}), std::nullopt);
  EXPECT_EQ(FirstTokenDifference({}, {}), std::nullopt);
}

TEST(TokenAgreement, NamesTheFirstDifferingPositionAndBothIds) {
  EXPECT_EQ(FirstTokenDifference({1, 2, 3, 9}, {1, 2, 4, 8}),
            "at token 2 of 4: id 3 here, id 4 in the reference");
  EXPECT_EQ(FirstTokenDifference({7}, {1, 2}), "at token 0 of 2: id 7 here, id 1 in the reference");
}

TEST(TokenAgreement, AListThatEndsEarlierSaysWhichAndBothLengths) {
  EXPECT_EQ(FirstTokenDifference({1, 2}, {1, 2, 3}),
            "the first 2 tokens agree, then this tokenizer ends (2 tokens here, 3 in the "
            "reference)");
  EXPECT_EQ(FirstTokenDifference({1, 2, 3}, {1, 2}),
            "the first 2 tokens agree, then the reference ends (3 tokens here, 2 in the "
            "reference)");
}

}  // namespace
}  // namespace pipette::workload
