// The quantize request's choices, checked before llama.cpp sees them; the override patterns are
// matched against the tensors of the real bundled model.
#include "quantize_options.h"

#include <gtest/gtest.h>

#include "pipette/testing/paths.h"

namespace pipette::llama_worker {
namespace {

const std::string kModel =
    pipette::testing::SourceDir() + "/models/SmolLM2-135M-Instruct.Q4_1.gguf";

TEST(QuantizeOptions, FileTypesAreFoundByTheirLlamaQuantizeNames) {
  const FileType* t = FindFileType("q4_k_m");
  ASSERT_NE(t, nullptr);
  EXPECT_STREQ(t->name, "Q4_K_M");
  EXPECT_EQ(t->ftype, LLAMA_FTYPE_MOSTLY_Q4_K_M);
  EXPECT_EQ(FindFileType("Q4_K_X"), nullptr);
  EXPECT_EQ(FileTypeNames().rfind("F32, F16, BF16, Q8_0", 0), 0u);
  EXPECT_TRUE(IsFloatFileType(FindFileType("BF16")->ftype));
  EXPECT_FALSE(IsFloatFileType(FindFileType("Q8_0")->ftype));
}

TEST(QuantizeOptions, OverridesAreResolvedOrRefusedWithTheirIndex) {
  auto ok = ResolveOverrides({{"blk\\.3\\.", "Q4_0"}, {"ffn_down", "q6_k"}});
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  ASSERT_EQ(ok->size(), 2u);
  EXPECT_EQ((*ok)[0].type, GGML_TYPE_Q4_0);
  EXPECT_EQ((*ok)[1].type, GGML_TYPE_Q6_K);

  auto bad_regex = ResolveOverrides({{"ok", "q4_0"}, {"blk.(", "q4_0"}});
  ASSERT_FALSE(bad_regex.ok());
  EXPECT_EQ(bad_regex.error().message.rfind(
                "overrides[1].pattern 'blk.(' is not a valid regular expression", 0),
            0u)
      << bad_regex.error().message;
  auto bad_type = ResolveOverrides({{"blk", "q9_9"}});
  ASSERT_FALSE(bad_type.ok());
  EXPECT_EQ(bad_type.error().message.rfind("overrides[0].type 'q9_9' is not a tensor type", 0), 0u);
  // A type that needs importance data llama.cpp never has for the embeddings would abort it.
  auto abort = ResolveOverrides({{"token_embd", "iq2_xxs"}});
  ASSERT_FALSE(abort.ok());
  EXPECT_NE(abort.error().message.find("would quantize token_embd.weight to iq2_xxs"),
            std::string::npos)
      << abort.error().message;
}

TEST(QuantizeOptions, PatternsAreMatchedAgainstTheModelsTensors) {
  auto overrides = ResolveOverrides({{"blk\\.3\\.ffn_down", "q4_0"}});
  ASSERT_TRUE(overrides.ok());
  auto n = MatchOverrides(kModel, *overrides);
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(*n, 1);
  auto all_down = ResolveOverrides({{"ffn_down", "q4_0"}});
  ASSERT_TRUE(all_down.ok());
  EXPECT_EQ(*MatchOverrides(kModel, *all_down), 30);  // one per layer of SmolLM2-135M

  auto typo = ResolveOverrides({{"blk\\\\.3", "q4_0"}});
  ASSERT_TRUE(typo.ok());
  auto none = MatchOverrides(kModel, *typo);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("matches no weight tensor"), std::string::npos);
  EXPECT_EQ(*MatchOverrides(kModel, {}), 0);
  EXPECT_FALSE(MatchOverrides(kModel + ".missing", *overrides).ok());
}

}  // namespace
}  // namespace pipette::llama_worker
