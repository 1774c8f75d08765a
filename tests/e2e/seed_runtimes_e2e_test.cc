// End-to-end: the seed runtimes (issue 11, "one ONNX file, more seed runtimes"). The bundled
// SmolLM2 GGUF converted to ONNX fp32 by Pipette (`convert:`) runs under ONNX Runtime and
// OpenVINO (both load the format onnx), and converted on to MNN (`convert:` with `to: mnn`,
// from that ONNX fp32 folder) under MNN, beside llama.cpp on an F32 variant of the same GGUF:
// the same weights in four runtimes, in one `--vary runtime` table. What does not
// depend on the machine's speed is checked: every runtime's tokenizer agrees with llama.cpp's
// (the run's own check), the KL divergence against llama.cpp F32 on the ppl positions is within
// a bound, greedy tokens agree, and each runtime's load says how it ran the graph.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <map>
#include <string>

#include "fixture.h"
#include "pipette/store/store.h"
#include "pipette/testing/paths.h"

namespace pipette_e2e {
namespace {

const std::string kConvertedCache = pipette::testing::BinaryDir() + "/tests/converted-cache";

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

// Mean KLD against llama.cpp F32 (F32 KV cache, flash attention off: its CPU kernel rounds
// through F16) over the ppl positions (2 chunks of 256), per runtime: the bound for the
// fp32 conversion, 1e-8. With llama.cpp's flash attention on, all three measured about 4.7e-7.
constexpr double kKldBound = 1e-8;

TEST_F(SeedRuntimes, OpenVinoAndMnnAgreeWithLlamaCppF32AsOnnxRuntimeDoes) {
  const fs::path ex = Write("ex.yaml",
                            "name: seeds\n"
                            "models:\n"
                            "  - {path: " +
                                kModel +
                                ", name: smol}\n"
                                "runtimes: [llama.cpp, onnxruntime, openvino, mnn]\n"
                                "quantize: {base: smol, types: [F32]}\n"
                                "convert:\n"
                                "  - {base: smol, to: onnx, variants: [fp32]}\n"
                                "  - {base: smol, to: mnn, variants: [fp32]}\n"
                                "params: {threads: 2, type_k: f32, type_v: f32, flash_attn: off}\n"
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
  // Its model: converted from the ONNX fp32 folder, with that in its provenance.
  bool mnn_cell = false;
  for (const json& c : doc["cells"]) {
    if (!c["key"].get<std::string>().starts_with("model=smol:mnn-fp32,")) continue;
    mnn_cell = true;
    const json& p = c["model_provenance"];
    EXPECT_EQ(p["to"], "mnn") << p.dump();
    EXPECT_EQ(p["model"]["format"], "pipette-mnn/1") << p.dump();
    EXPECT_NE(p["made"].value("from", "").find(".onnx-fp32."), std::string::npos) << p.dump();
  }
  EXPECT_TRUE(mnn_cell);

  const Output vary = Pipette({"report", "--store", Store(), "--vary", "runtime"});
  ASSERT_EQ(vary.code, 0) << vary.err;
  std::cerr << vary.out;
  // One table holds the four runtimes: flash_attn (llama.cpp's alone) does not split it.
  const size_t f32 = vary.out.find("varying runtime; fixed: weights=");
  ASSERT_NE(f32, std::string::npos) << vary.out;
  const size_t body = vary.out.find("\n\n", f32) + 2;  // past the title
  const std::string table = vary.out.substr(f32, vary.out.find("\n\n", body) - f32);
  for (const char* runtime : {"llama.cpp", "onnxruntime", "openvino", "mnn"}) {
    EXPECT_NE(table.find(runtime), std::string::npos) << runtime << "\n" << vary.out;
  }
}

}  // namespace
}  // namespace pipette_e2e
