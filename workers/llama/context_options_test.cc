#include "context_options.h"

#include <gtest/gtest.h>

namespace pipette::llama_worker {
namespace {

using nlohmann::json;

TEST(KvCacheType, EveryAcceptedNameIsGgmlsNameOfItsType) {
  int n = 0;
  for (const char* name : {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1"}) {
    const std::optional<ggml_type> t = KvCacheType(name);
    ASSERT_TRUE(t.has_value()) << name;
    EXPECT_STREQ(ggml_type_name(*t), name);
    ++n;
  }
  EXPECT_EQ(n, 8);
  EXPECT_EQ(KnownKvCacheTypes(), "f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1");
}

TEST(KvCacheType, OtherNamesAreNotAccepted) {
  EXPECT_FALSE(KvCacheType("F16").has_value());  // names are ggml's, lower case
  EXPECT_FALSE(KvCacheType("q4_k").has_value());
  EXPECT_FALSE(KvCacheType("").has_value());
}

Result<std::string> Setting(const json& request) {
  FieldReader fields(request, "init_context request");
  auto s = FlashAttnSetting(request, fields);
  if (Status st = fields.status(); s && !st) return st.error();
  return s;
}

TEST(FlashAttnSetting, ReadsTheWordsAndProtocolOnesBooleans) {
  EXPECT_EQ(*Setting(json::object()), "auto");
  EXPECT_EQ(*Setting({{"flash_attn", "on"}}), "on");
  EXPECT_EQ(*Setting({{"flash_attn", "off"}}), "off");
  EXPECT_EQ(*Setting({{"flash_attn", "auto"}}), "auto");
  EXPECT_EQ(*Setting({{"flash_attn", true}}), "on");
  EXPECT_EQ(*Setting({{"flash_attn", false}}), "off");
  EXPECT_EQ(FlashAttnType("on"), LLAMA_FLASH_ATTN_TYPE_ENABLED);
  EXPECT_EQ(FlashAttnType("off"), LLAMA_FLASH_ATTN_TYPE_DISABLED);
  EXPECT_EQ(FlashAttnType("auto"), LLAMA_FLASH_ATTN_TYPE_AUTO);
}

TEST(FlashAttnSetting, AnotherWordIsAnErrorNamingIt) {
  auto s = Setting({{"flash_attn", "yes"}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "'flash_attn' must be \"auto\", \"on\" or \"off\", got 'yes'");
}

}  // namespace
}  // namespace pipette::llama_worker
