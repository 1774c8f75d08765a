#include "pipette/quant/types.h"

#include <gtest/gtest.h>

namespace pipette::quant {
namespace {

TEST(QuantTypes, FileTypesAreLlamaQuantizeNames) {
  EXPECT_TRUE(IsFileType("Q4_K_M"));
  EXPECT_TRUE(IsFileType("F16"));
  EXPECT_FALSE(IsFileType("q4_k_m"));
  EXPECT_FALSE(IsFileType("Q4_K"));
}

TEST(QuantTypes, TensorTypesAreCaseInsensitive) {
  EXPECT_EQ(CanonicalTensorType("Q4_K"), "q4_K");
  EXPECT_EQ(CanonicalTensorType("q8_0"), "q8_0");
  EXPECT_EQ(CanonicalTensorType("F16"), "f16");
  EXPECT_EQ(CanonicalTensorType("q4_k_m"), std::nullopt);
}

TEST(QuantTypes, BitsPerWeightFollowTheBlockLayouts) {
  EXPECT_DOUBLE_EQ(*BitsPerWeight("q4_0"), 4.5);
  EXPECT_DOUBLE_EQ(*BitsPerWeight("q8_0"), 8.5);
  EXPECT_DOUBLE_EQ(*BitsPerWeight("q6_K"), 6.5625);
  EXPECT_DOUBLE_EQ(*BitsPerWeight("q2_K"), 2.625);
  EXPECT_DOUBLE_EQ(*BitsPerWeight("f16"), 16.0);
  EXPECT_EQ(BitsPerWeight("q9_9"), std::nullopt);
}

TEST(QuantTypes, FullPrecision) {
  EXPECT_TRUE(IsFullPrecision("F16"));
  EXPECT_TRUE(IsFullPrecision("BF16"));
  EXPECT_FALSE(IsFullPrecision("Q8_0"));
  EXPECT_FALSE(IsFullPrecision("Q4_1"));
}

}  // namespace
}  // namespace pipette::quant
