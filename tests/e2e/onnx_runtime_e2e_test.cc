// End-to-end: the bundled SmolLM2 GGUF converted to ONNX by Pipette (`convert:`) and measured
// under ONNX Runtime beside llama.cpp on an F32 variant of the same GGUF: the same weights in two
// runtimes. What does not depend on the machine's speed is checked: the tokenizer agrees with
// llama.cpp's token for token (the run's own check, on the corpus, the MC items and the rendered
// generation prompts), the rendered prompts are byte-equal across runtimes, the cross-runtime KL
// divergence is within the bounds, greedy outputs agree, token counts are right, the
// conversion is cached and its provenance stored, and the fp16 variant's fall-back is reported.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <map>
#include <set>
#include <string>

#include "fixture.h"
#include "pipette/store/store.h"
#include "pipette/testing/paths.h"

namespace pipette_e2e {
namespace {

// Conversions are cached by what defines them: the tests share one cache in the build folder
// (like the build's other products), so the bundled model is converted once per build, not per
// test. The cache test uses a folder of its own.
const std::string kSharedCache = pipette::testing::BinaryDir() + "/tests/converted-cache";

class OnnxRuntime : public E2E {
 protected:
  void SetUp() override {
    E2E::SetUp();
    variants_ = dir_ / "variants";
    setenv("PIPETTE_VARIANTS_DIR", variants_.c_str(), 1);
    setenv("PIPETTE_CONVERTED_DIR", kSharedCache.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("PIPETTE_VARIANTS_DIR");
    unsetenv("PIPETTE_CONVERTED_DIR");
    E2E::TearDown();
  }

  // An experiment of the bundled model (named smol), its llama.cpp F32 variant and the given
  // ONNX variants, under both runtimes.
  fs::path Experiment(const std::string& variants, const std::string& params,
                      const std::string& quality, const std::string& tests = "[tg4]") {
    return Write("ex.yaml",
                 "name: cross\n"
                 "models: [{path: " +
                     kModel +
                     ", name: smol}]\n"
                     "runtimes: [llama.cpp, onnxruntime]\n"
                     "quantize: {base: smol, types: [F32]}\n"
                     "convert: {base: smol, to: onnx, variants: " +
                     variants +
                     "}\n"
                     "params: " +
                     params +
                     "\n"
                     "tests: " +
                     tests +
                     "\n"
                     "repetitions: 1\nwarmup: 0\n"
                     "quality:\n" +
                     quality);
  }

  Output Run(const fs::path& ex, const std::string& only = "runtime=onnxruntime") {
    return Pipette({"run", ex.string(), "--store", Store(), "--only", only});
  }

  // The cells of the latest run by model name.
  std::map<std::string, pipette::store::CellRecord> CellsByModel() {
    auto st = pipette::store::Store::Open(Store());
    EXPECT_TRUE(st.ok());
    auto run = (*st)->LatestRunId();
    EXPECT_TRUE(run.ok() && run->has_value());
    std::map<std::string, pipette::store::CellRecord> out;
    auto cells = (*st)->Cells(**run);
    EXPECT_TRUE(cells.ok());
    for (const auto& c : *cells) out[c.model_name] = c;
    return out;
  }

  fs::path variants_;
};

const std::string kQuality =
    "  ppl: {chunks: 2, n_ctx: 256}\n"
    "  kld: {reference: 'smol:F32', chunks: 2, n_ctx: 256}\n"
    "  mc: {limit: 5}\n"
    "  gen: {limit: 10}\n"
    "  divergence: {reference: 'smol:F32'}\n";

// With an F32 KV cache on both sides (and llama.cpp's flash attention off: its CPU kernel rounds
// through F16, which alone gives a mean KLD of about 3.5e-7) the two runtimes compute the same
// numbers up to float rounding: mean KLD <= 1e-8 (measured 8.9e-12) and the same top token
// everywhere.
TEST_F(OnnxRuntime, TheFp32ConversionAgreesWithLlamaCppF32WithAnF32KvCache) {
  const Output o = Run(
      Experiment("[fp32]", "{threads: 2, type_k: f32, type_v: f32, flash_attn: off}", kQuality));
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  auto cells = CellsByModel();
  ASSERT_EQ(cells.size(), 2u) << o.out;
  const auto& ort = cells.at("smol:onnx-fp32");
  const auto& ref = cells.at("smol:F32");
  ASSERT_EQ(ort.status, "ok") << ort.error;
  ASSERT_EQ(ref.status, "ok") << ref.error;
  EXPECT_EQ(ort.runtime, "onnxruntime");

  // The run's own tokenizer check ran on every text the cell tokenized, and agreed.
  std::set<std::string> checked;
  for (const auto& s : Samples(ort.id, "tokenizer_check")) {
    EXPECT_EQ(s.raw["agreed"], true);
    EXPECT_EQ(s.raw["source"], kModel);
    checked.insert(s.raw["parse_special"] ? "rendered prompt" : "text");
  }
  EXPECT_EQ(checked, (std::set<std::string>{"text", "rendered prompt"}));
  EXPECT_GE(Samples(ort.id, "tokenizer_check").size(), 1u + 5u + 10u);  // corpus, mc, gen

  // The same prompt bytes for every generation item under both runtimes.
  const auto ort_gen = Samples(ort.id, "gen"), ref_gen = Samples(ref.id, "gen");
  ASSERT_EQ(ort_gen.size(), 10u);
  ASSERT_EQ(ref_gen.size(), 10u);
  for (size_t i = 0; i < ort_gen.size(); ++i) {
    EXPECT_EQ(ort_gen[i].raw["prompt_sha256"], ref_gen[i].raw["prompt_sha256"]) << i;
    EXPECT_EQ(ort_gen[i].raw["n_prompt_tokens"], ref_gen[i].raw["n_prompt_tokens"]) << i;
  }
  EXPECT_EQ(Samples(ort.id, "gen_dataset")[0].raw["template_rendered_by"], "render_chat");

  const json doc = ReportJson();
  const int c = static_cast<int>(ort.index) + 1;
  const double kld = Value(doc["results"], c, "kld", "kld_mean");
  EXPECT_LE(kld, 1e-8) << "mean KLD between llama.cpp F32 and the ONNX fp32 conversion";
  EXPECT_EQ(Value(doc["results"], c, "kld", "top1_agree"), 1.0);
  EXPECT_GE(Value(doc["results"], c, "divergence", "identical"), 0.95);
  const double ppl_ort = Value(doc["results"], c, "ppl", "ppl");
  const double ppl_ref = Value(doc["results"], static_cast<int>(ref.index) + 1, "ppl", "ppl");
  EXPECT_NEAR(ppl_ort / ppl_ref, 1.0, 1e-4);
  // tg4 generated exactly 4 tokens.
  EXPECT_EQ(Samples(ort.id, "tg4")[0].raw["tokens"].size(), 4u);
}

// With llama.cpp's default f16 KV cache the reference rounds its cache: mean KLD <= 1e-5.
TEST_F(OnnxRuntime, WithLlamaCppsDefaultF16KvCacheTheKldStaysWithinItsBound) {
  const Output o = Run(Experiment("[fp32]", "{threads: 2}",
                                  "  kld: {reference: 'smol:F32', chunks: 2, n_ctx: 256}\n"));
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  auto cells = CellsByModel();
  const auto& ort = cells.at("smol:onnx-fp32");
  ASSERT_EQ(ort.status, "ok") << ort.error;
  const json doc = ReportJson();
  const double kld = Value(doc["results"], static_cast<int>(ort.index) + 1, "kld", "kld_mean");
  EXPECT_LE(kld, 1e-5);
  EXPECT_GT(kld, 0.0);  // the f16 cache does round
}

// The fp16 variant: the CPU provider has no fp16 kernels for some ops and runs them in fp32
// through casts it inserts; the load reports them, with counts and op types.
TEST_F(OnnxRuntime, TheFp16VariantsFallBackIsReported) {
  const Output o =
      Run(Experiment("[fp32, fp16]", "{threads: 2}", "  ppl: {chunks: 1, n_ctx: 128}\n"),
          "runtime=onnxruntime");
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  auto cells = CellsByModel();
  const auto load16 = Samples(cells.at("smol:onnx-fp16").id, "load");
  const auto load32 = Samples(cells.at("smol:onnx-fp32").id, "load");
  ASSERT_EQ(load16.size(), 1u);
  ASSERT_EQ(load32.size(), 1u);
  const json f16 = load16[0].raw["fallback"], f32 = load32[0].raw["fallback"];
  ASSERT_TRUE(f16.is_object()) << load16[0].raw.dump();
  EXPECT_GT(f16["inserted_casts"].get<int64_t>(), 0);
  EXPECT_FALSE(f16["inserted_cast_ops"].empty());
  EXPECT_EQ(f32["inserted_casts"], 0);
  EXPECT_EQ(f16["nodes_on_other_providers"], 0);
  // And the report says so, in the row of the load.
  const json doc = ReportJson();
  const json* casts = Find(doc["results"], static_cast<int>(cells.at("smol:onnx-fp16").index) + 1,
                           "load", "inserted_casts");
  ASSERT_NE(casts, nullptr);
  EXPECT_EQ(casts->value("subset", ""), "");  // the total first
  EXPECT_EQ(casts->at("value").get<double>(), f16["inserted_casts"].get<double>());
  // ... then one row per op type, as the load sample has them.
  const int fp16_cell = static_cast<int>(cells.at("smol:onnx-fp16").index) + 1;
  json by_op = json::object();
  for (const json& r : doc["results"]) {
    if (r["cell"] == fp16_cell && r["test"] == "load" && r["metric"] == "inserted_casts" &&
        !r.value("subset", "").empty()) {
      by_op[r["subset"].get<std::string>()] = r["value"].get<int64_t>();
    }
  }
  EXPECT_EQ(by_op, f16["inserted_cast_ops"]);
}

// A conversion is made once and cached by what defines it; every cell carries its provenance.
TEST_F(OnnxRuntime, AConversionIsCachedAndItsProvenanceStored) {
  const fs::path own = dir_ / "converted";
  setenv("PIPETTE_CONVERTED_DIR", own.c_str(), 1);
  const fs::path ex =
      Experiment("[fp32, int8-dynamic]", "{threads: 2}", "  ppl: {chunks: 1, n_ctx: 128}\n");
  const Output dry = Pipette({"run", ex.string(), "--store", Store(), "--dry-run"});
  ASSERT_EQ(dry.code, 0) << dry.err;
  EXPECT_NE(dry.out.find("to convert"), std::string::npos) << dry.out;
  const Output first = Run(ex);
  ASSERT_EQ(first.code, 0) << first.out << first.err;
  const Output again = Pipette({"run", ex.string(), "--store", Store(), "--dry-run"});
  EXPECT_NE(again.out.find("cached"), std::string::npos) << again.out;
  EXPECT_EQ(again.out.find("to convert"), std::string::npos) << again.out;
  const json doc = ReportJson();
  bool int8 = false;
  for (const json& c : doc["cells"]) {
    if (!c["key"].get<std::string>().starts_with("model=smol:onnx-int8-dynamic,")) continue;
    int8 = true;
    const json& p = c["model_provenance"];
    EXPECT_EQ(p["base"]["sha256"],
              "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53")
        << p.dump();
    EXPECT_EQ(p["variant"]["name"], "int8-dynamic") << p.dump();
    EXPECT_TRUE(p["model"].contains("converter")) << p.dump();
  }
  EXPECT_TRUE(int8);
}

}  // namespace
}  // namespace pipette_e2e
