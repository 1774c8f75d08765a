#include "pipette/model/ggml_types.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace pipette::model {
namespace {

TEST(GgmlTypes, EachNameIsOneTypeFoundByItsIdAndByItsName) {
  std::set<std::string> names;
  int found = 0;
  for (uint32_t id = 0; id < 64; ++id) {
    const GgmlType* t = FindGgmlType(id);
    if (t == nullptr) continue;
    ++found;
    EXPECT_TRUE(names.insert(t->name).second) << t->name;
    EXPECT_EQ(FindGgmlType(std::string_view(t->name)), t) << t->name;
    EXPECT_GT(t->block_size, 0u);
    EXPECT_GT(t->type_size, 0u);
  }
  EXPECT_GE(found, 30);
  EXPECT_EQ(FindGgmlType(4), nullptr);                         // Q4_2, removed
  EXPECT_EQ(FindGgmlType(std::string_view("Q4_0")), nullptr);  // ggml's names are lower-case
}

TEST(GgmlTypes, BlockLayoutsAreGgmls) {
  // block_q4_0: an f16 scale and 16 bytes of nibbles for 32 weights; block_q6_K: 210 bytes for
  // 256 weights.
  EXPECT_EQ(FindGgmlType(2), FindGgmlType(std::string_view("q4_0")));
  EXPECT_DOUBLE_EQ(FindGgmlType(std::string_view("q4_0"))->BytesPerElement(), 18.0 / 32);
  EXPECT_DOUBLE_EQ(FindGgmlType(std::string_view("q6_K"))->BytesPerElement(), 210.0 / 256);
  EXPECT_DOUBLE_EQ(FindGgmlType(std::string_view("f32"))->BytesPerElement(), 4.0);
}

}  // namespace
}  // namespace pipette::model
