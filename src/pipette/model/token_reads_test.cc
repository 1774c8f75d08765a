#include "pipette/model/token_reads.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "pipette/testing/paths.h"

namespace pipette::model {
namespace {

GgufFile Shape(std::map<std::string, std::string> meta) {
  GgufFile f;
  f.metadata = std::move(meta);
  f.metadata["general.architecture"] = "llama";
  f.tensors = {{"token_embd.weight", {64, 1000}, 1, "f16", 0, 128000},
               {"blk.0.attn_q.weight", {64, 64}, 1, "f16", 0, 8192},
               {"output.weight", {64, 1000}, 1, "f16", 0, 128000}};
  return f;
}

std::map<std::string, std::string> Llama(int layers) {
  return {{"llama.block_count", std::to_string(layers)},
          {"llama.attention.head_count", "4"},
          {"llama.attention.head_count_kv", "2"},
          {"llama.embedding_length", "64"}};
}

TEST(TokenReadsTest, UntiedOutputReadsOneEmbeddingRow) {
  auto r = TokenReadsOf(Shape(Llama(3)));
  ASSERT_TRUE(r) << r.error().message;
  // Everything but the embedding (8192 + 128000), plus one of its 1000 rows (128 bytes).
  EXPECT_EQ(r->weight_bytes, 8192 + 128000 + 128);
  EXPECT_FALSE(r->output_tied);
  ASSERT_EQ(r->kv.size(), 1u);
  EXPECT_EQ(r->kv[0].count, 3);
  EXPECT_EQ(r->kv[0].k_per_position, 2 * 16);  // n_head_kv x (64 / 4)
  EXPECT_EQ(r->kv[0].v_per_position, 2 * 16);
  EXPECT_EQ(r->kv[0].window, 0);
  // 3 layers x 10 positions x (32 K + 32 V elements) x 2 bytes.
  EXPECT_DOUBLE_EQ(KvReadBytes(*r, 10, 2.0, 2.0), 3 * 10 * 64 * 2.0);
  // tg of 4 after 6: positions 7..10, a mean of 8.5.
  EXPECT_DOUBLE_EQ(TgBytesPerToken(*r, 6, 4, 2.0, 2.0), double(r->weight_bytes) + 3 * 8.5 * 128);
}

TEST(TokenReadsTest, FilePatternAndSlidingWindowCap) {
  auto meta = Llama(4);
  meta["llama.attention.sliding_window"] = "8";
  meta["llama.attention.sliding_window_pattern"] = "2";  // layers 0 and 2 slide
  auto r = TokenReadsOf(Shape(meta));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->kv.size(), 4u);
  EXPECT_EQ(r->kv[0].window, 8);
  EXPECT_EQ(r->kv[1].window, 0);
  EXPECT_NE(r->kv_source.find("the file's sliding_window_pattern"), std::string::npos)
      << r->kv_source;
  // At 20 positions: 2 layers x 8 + 2 layers x 20, 64 elements of 1 byte each.
  EXPECT_DOUBLE_EQ(KvReadBytes(*r, 20, 1.0, 1.0), (2 * 8 + 2 * 20) * 64.0);
  EXPECT_DOUBLE_EQ(KvReadBytes(*r, 4, 1.0, 1.0), 4 * 4 * 64.0);
}

TEST(TokenReadsTest, ShapesItCannotReadAreErrors) {
  auto meta = Llama(2);
  meta["llama.attention.head_count_kv"] = "[array of 2 int32]";
  auto r = TokenReadsOf(Shape(meta));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("llama.attention.head_count_kv is '[array of 2 int32]'"),
            std::string::npos)
      << r.error().message;
  meta = Llama(2);
  meta["llama.attention.sliding_window"] = "8";
  r = TokenReadsOf(Shape(meta));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("none is known for llama"), std::string::npos);
  meta.erase("llama.block_count");
  EXPECT_NE(TokenReadsOf(Shape(meta)).error().message.find("no llama.block_count"),
            std::string::npos);
}

TEST(TokenReadsTest, ExpertsReadAreTheOnesUsedAndOtherShapesAreRefused) {
  auto meta = Llama(1);
  GgufFile f = Shape(meta);
  f.tensors.push_back({"blk.0.ffn_up_exps.weight", {64, 64, 8}, 1, "f16", 0, 65536});
  EXPECT_NE(TokenReadsOf(f).error().message.find("no readable llama.expert_count"),
            std::string::npos);
  f.metadata["llama.expert_count"] = "8";
  f.metadata["llama.expert_used_count"] = "2";
  auto r = TokenReadsOf(f);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->weight_bytes, 8192 + 128000 + 128 + 65536 / 8 * 2);  // 2 of 8 experts
  meta["llama.attention.kv_lora_rank"] = "512";                     // DeepSeek's latent attention
  auto mla = TokenReadsOf(Shape(meta));
  ASSERT_FALSE(mla);
  EXPECT_NE(mla.error().message.find("llama.attention.kv_lora_rank"), std::string::npos);
  meta = Llama(3);
  meta["llama.attention.sliding_window"] = "8";
  meta["llama.attention.sliding_window_pattern"] = "0";  // llama.cpp: every layer slides
  r = TokenReadsOf(Shape(meta));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->kv.size(), 1u);
  EXPECT_EQ(r->kv[0].window, 8);
  meta["llama.attention.sliding_window_pattern"] = "[array of 3 bool]";
  EXPECT_NE(TokenReadsOf(Shape(meta)).error().message.find("per-layer array"), std::string::npos);
}

TEST(TokenReadsTest, JsonRoundTripAndKvTypes) {
  auto meta = Llama(2);
  auto r = TokenReadsOf(Shape(meta));
  ASSERT_TRUE(r);
  auto back = TokenReadsFromJson(ToJson(*r));
  ASSERT_TRUE(back);
  EXPECT_EQ(ToJson(*back), ToJson(*r));
  EXPECT_FALSE(TokenReadsFromJson(nlohmann::json{{"weight_bytes", "x"}}));
  EXPECT_FALSE(TokenReadsFromJson(nlohmann::json{{"weight_bytes", 1}, {"kv", {{{"layers", 1}}}}}));
  EXPECT_EQ(KvTypeBytes("f16"), 2.0);
  EXPECT_EQ(KvTypeBytes("q8_0"), 34.0 / 32.0);
  EXPECT_EQ(KvTypeBytes("q4_0"), 18.0 / 32.0);
  EXPECT_EQ(KvTypeBytes("f8"), std::nullopt);
}

// The shipped models, against what the gguf package (gguf-py 0.19.0's GGUFReader) reads from the
// same files: the sum of every tensor's n_bytes, token_embd's size and rows, no output.weight.
TEST(TokenReadsTest, ShippedModels) {
  const std::string dir = pipette::testing::SourceDir() + "/models/";
  auto smol = ReadGguf(dir + "SmolLM2-135M-Instruct.Q4_1.gguf");
  ASSERT_TRUE(smol) << smol.error().message;
  auto r = TokenReadsOf(*smol);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->output_tied);
  EXPECT_EQ(r->weight_bytes, 96576768 + 30081024 / 49152);
  ASSERT_EQ(r->kv.size(), 1u);
  EXPECT_EQ(r->kv[0].count, 30);
  EXPECT_EQ(r->kv[0].k_per_position, 3 * 64);
  EXPECT_EQ(r->kv[0].window, 0);

  auto gemma = ReadGguf(dir + "gemma-3-270m-q4_k_m.gguf");
  ASSERT_TRUE(gemma) << gemma.error().message;
  r = TokenReadsOf(*gemma);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->output_tied);
  EXPECT_EQ(r->weight_bytes, 246587904 + 178257920 / 262144);
  // 18 layers: 5 sliding (window 512) then 1 global, three times (llama.cpp's gemma3 pattern).
  ASSERT_EQ(r->kv.size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(r->kv[i].count, i % 2 == 0 ? 5 : 1) << i;
    EXPECT_EQ(r->kv[i].window, i % 2 == 0 ? 512 : 0) << i;
    EXPECT_EQ(r->kv[i].k_per_position, 256) << i;
  }
  EXPECT_NE(r->kv_source.find("gemma3 pattern"), std::string::npos) << r->kv_source;
  // At 8192 positions a plain formula would read 18 x 8192 positions; the window caps 15 layers.
  const double swa = KvReadBytes(*r, 8192, 2.0, 2.0);
  EXPECT_DOUBLE_EQ(swa, (15.0 * 512 + 3.0 * 8192) * 512 * 2.0);
}

}  // namespace
}  // namespace pipette::model
