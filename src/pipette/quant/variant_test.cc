#include "pipette/quant/variant.h"

#include <gtest/gtest.h>

namespace pipette::quant {
namespace {

VariantSpec Sample() {
  VariantSpec v;
  v.name = "smol:Q4_K_M";
  v.label = "Q4_K_M";
  v.base_name = "smol";
  v.base_path = "/m/SmolLM2-135M-Instruct.Q4_1.gguf";
  v.base_sha256 = "abc";
  v.base_quant = "Q4_1";
  v.type = "Q4_K_M";
  return v;
}

TEST(Variant, CacheKeyDependsOnBaseTypeAndOptionsOnly) {
  VariantSpec a = Sample();
  VariantSpec b = Sample();
  b.name = "other name";  // names do not change the bytes
  b.base_path = "/elsewhere/SmolLM2-135M-Instruct.Q4_1.gguf";
  EXPECT_EQ(a.CacheKey(), b.CacheKey());
  b.type = "Q4_0";
  EXPECT_NE(a.CacheKey(), b.CacheKey());
  VariantSpec c = Sample();
  c.base_sha256 = "abd";
  EXPECT_NE(a.CacheKey(), c.CacheKey());
  VariantSpec d = Sample();
  d.overrides.push_back({"blk\\.0\\..*", "q8_0"});
  EXPECT_NE(a.CacheKey(), d.CacheKey());
  VariantSpec e = Sample();
  e.imatrix = ImatrixSpec{"/c.txt", "c0ffee", 512, 8};
  EXPECT_NE(a.CacheKey(), e.CacheKey());
  VariantSpec f = e;
  f.imatrix->chunks = 9;
  EXPECT_NE(e.CacheKey(), f.CacheKey());
  EXPECT_NE(ImatrixFileName(e), ImatrixFileName(f));
}

TEST(Variant, FileNameIsReadableAndKeyed) {
  const VariantSpec v = Sample();
  EXPECT_EQ(v.FileName(),
            "SmolLM2-135M-Instruct.Q4_1.Q4_K_M." + v.CacheKey().substr(0, 12) + ".gguf");
  VariantSpec w = Sample();
  w.label = "Q4_0+imatrix";
  EXPECT_NE(w.FileName().find("Q4_0-imatrix"), std::string::npos);
}

TEST(Variant, ProvenanceSaysWhenItIsARequantization) {
  const nlohmann::json p = Sample().Provenance();
  EXPECT_TRUE(p["requantized"].get<bool>());
  EXPECT_EQ(p["base"]["quant"], "Q4_1");
  EXPECT_NE(p["note"].get<std::string>().find("not a quantization of the full-precision"),
            std::string::npos);
  EXPECT_EQ(OriginNote(p), "re-quantized from Q4_1");

  VariantSpec fp = Sample();
  fp.base_quant = "F16";
  EXPECT_FALSE(fp.Requantized());
  EXPECT_EQ(OriginNote(fp.Provenance()), "quantized from F16");
  EXPECT_EQ(OriginNote(nlohmann::json()), "");

  // An F16 file made from Q4_1 holds Q4_1 weights: its own variants are re-quantizations too.
  VariantSpec up = Sample();
  up.base_quant = "F16";
  up.base_origin = "Q4_1";
  EXPECT_TRUE(up.Requantized());
  EXPECT_EQ(OriginNote(up.Provenance()), "re-quantized from Q4_1");
}

}  // namespace
}  // namespace pipette::quant
