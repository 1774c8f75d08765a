// End-to-end: the seed runtimes (issue 11, "one ONNX file, more seed runtimes"). The bundled
// SmolLM2 GGUF converted to ONNX fp32 by Pipette (`convert:`) runs under ONNX Runtime and
// OpenVINO (both load the format onnx), its MNN conversion (the conformance suite's, made by
// `pipette_convert mnn`, a ctest fixture) under MNN, beside llama.cpp on an F32 variant of the
// same GGUF: the same weights in four runtimes, in one `--vary runtime` table. What does not
// depend on the machine's speed is checked: every runtime's tokenizer agrees with llama.cpp's
// (the run's own check), the KL divergence against llama.cpp F32 on the ppl positions is within
// a bound, greedy tokens agree, and each runtime's load says how it ran the graph.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <map>
#include <string>

#include "fixture.h"
#include "pipette/store/store.h"

namespace pipette_e2e {
namespace {

const std::string kConvertedCache = std::string(PIPETTE_BUILD_DIR) + "/tests/converted-cache";

class SeedRuntimes : public E2E {
 protected:
  void SetUp() override {
    E2E::SetUp();
    setenv("PIPETTE_VARIANTS_DIR", (dir_ / "variants").c_str(), 1);
    setenv("PIPETTE_CONVERTED_DIR", kConvertedCache.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("PIPETTE_VARIANTS_DIR");
    unsetenv("PIPETTE_CONVERTED_DIR");
    E2E::TearDown();
  }

  std::map<std::string, pipette::store::CellRecord> CellsByRuntime() {
    std::map<std::string, pipette::store::CellRecord> out;
    auto st = pipette::store::Store::Open(Store());
    EXPECT_TRUE(st.ok());
    if (!st.ok()) return out;
    auto run = (*st)->LatestRunId();
    EXPECT_TRUE(run.ok() && run->has_value());
    if (!run.ok() || !run->has_value()) return out;
    auto cells = (*st)->Cells(**run);
    EXPECT_TRUE(cells.ok());
    if (!cells.ok()) return out;
    for (const auto& c : *cells) {
      out[c.model_name == "smol:F32" ? "reference" : c.runtime] = c;
    }
    return out;
  }
};

// Mean KLD against llama.cpp F32 (F32 KV cache) over the ppl positions (2 chunks of 256), per
// runtime. Measured on this machine (2 threads): onnxruntime 4.695e-7, openvino 4.702e-7, mnn
// 4.702e-7, top-1 agreement 1.0 and ppl 45.0041 in all three: the three ONNX-side runtimes agree
// with each other far closer than with llama.cpp, whose own float kernels make most of the
// figure. The bound leaves room for other CPUs' kernels while staying far below what a wrong
// graph gives (a rope of the wrong pairing is > 1).
constexpr double kKldBound = 2e-6;

TEST_F(SeedRuntimes, OpenVinoAndMnnAgreeWithLlamaCppF32AsOnnxRuntimeDoes) {
  const fs::path ex = Write("ex.yaml",
                            "name: seeds\n"
                            "models:\n"
                            "  - {path: " +
                                kModel +
                                ", name: smol}\n"
                                "  - {path: " PIPETTE_MNN_TEST_MODEL
                                ", name: smol-mnn}\n"
                                "runtimes: [llama.cpp, onnxruntime, openvino, mnn]\n"
                                "quantize: {base: smol, types: [F32]}\n"
                                "convert: {base: smol, to: onnx, variants: [fp32]}\n"
                                "params: {threads: 2, type_k: f32, type_v: f32}\n"
                                "tests: [tg4]\n"
                                "repetitions: 1\nwarmup: 0\n"
                                "quality:\n"
                                "  ppl: {chunks: 2, n_ctx: 256}\n"
                                "  kld: {reference: 'smol:F32', chunks: 2, n_ctx: 256}\n"
                                "  gen: {limit: 5}\n"
                                "  divergence: {reference: 'smol:F32'}\n");
  const Output o = Pipette({"run", ex.string(), "--store", Store()});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  auto cells = CellsByRuntime();
  const json doc = ReportJson();
  for (const char* runtime : {"onnxruntime", "openvino", "mnn"}) {
    ASSERT_TRUE(cells.contains(runtime)) << runtime << "\n" << o.out;
    const auto& c = cells.at(runtime);
    ASSERT_EQ(c.status, "ok") << runtime << ": " << c.error;
    const auto checks = Samples(c.id, "tokenizer_check");
    EXPECT_FALSE(checks.empty()) << runtime;
    for (const auto& s : checks) EXPECT_EQ(s.raw["agreed"], true) << runtime;
    const int i = c.index + 1;  // the report numbers cells from 1
    const double kld = Value(doc["results"], i, "kld", "kld_mean");
    std::cerr << "[seed runtimes] " << runtime << ": kld_mean " << kld << ", top1_agree "
              << Value(doc["results"], i, "kld", "top1_agree") << ", ppl "
              << Value(doc["results"], i, "ppl", "ppl") << "\n";
    EXPECT_LE(kld, kKldBound) << runtime;
    EXPECT_EQ(Value(doc["results"], i, "kld", "top1_agree"), 1.0) << runtime;
    EXPECT_GE(Value(doc["results"], i, "divergence", "identical"), 0.95) << runtime;
    EXPECT_EQ(Samples(c.id, "tg4")[0].raw["tokens"].size(), 4u) << runtime;
  }
  // How each ran the graph, from its load.
  const json ov = Samples(cells.at("openvino").id, "load")[0].raw;
  EXPECT_EQ(ov["inference_precision"], "f32") << ov.dump();
  EXPECT_FALSE(ov["runtime_precisions"].contains("bf16")) << ov.dump();
  const json mnn = Samples(cells.at("mnn").id, "load")[0].raw;
  EXPECT_EQ(mnn["precision"], "high") << mnn.dump();

  const Output vary = Pipette({"report", "--store", Store(), "--vary", "runtime"});
  ASSERT_EQ(vary.code, 0) << vary.err;
  std::cerr << vary.out;
  for (const char* runtime : {"onnxruntime", "openvino", "mnn"}) {
    EXPECT_NE(vary.out.find(runtime), std::string::npos) << vary.out;
  }
}

}  // namespace
}  // namespace pipette_e2e
