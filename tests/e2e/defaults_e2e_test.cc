// A run that sets no runtime parameter: llama.cpp's defaults apply and are stored as they ran.
#include "fixture.h"

namespace pipette_e2e {
namespace {

TEST_F(E2E, NothingSetRunsWithTheRuntimesDefaultsAndStoresWhatTheyWere) {
  fs::path ex = Write("ex.yaml", R"(name: e2e-defaults
models: [smollm2-135m-instruct-q4_1]
tests: [pp16, tg4]
repetitions: 1
warmup: 0
)");
  Output o = Pipette({"run", ex.string(), "--store", Store()});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  // The console table says flash attention was llama.cpp's choice, and what it chose.
  EXPECT_NE(o.out.find("flash_attn"), std::string::npos) << o.out;
  EXPECT_TRUE(o.out.find("on (auto)") != std::string::npos ||
              o.out.find("off (auto)") != std::string::npos)
      << o.out;

  const json doc = ReportJson();
  const json* r = Find(doc["results"], 1, "pp16", "throughput");
  ASSERT_NE(r, nullptr);
  const json& p = (*r)["params"];
  // What ran, as the runtime applied it: its batch (2048) clamped to the 256-token context,
  // its micro-batch (512) clamped to that, f16 caches, its thread default, a resolved flash
  // attention (the log said which), the model mapped, every layer offered to a device.
  EXPECT_EQ(p["n_ctx"], 256) << p.dump();
  EXPECT_EQ(p["n_batch"], 256) << p.dump();
  EXPECT_EQ(p["n_ubatch"], 256) << p.dump();
  EXPECT_EQ(p["type_k"], "f16");
  EXPECT_EQ(p["type_v"], "f16");
  ASSERT_TRUE(p["threads"].is_number_integer()) << p.dump();
  // llama.cpp's own tools' thread default on this machine, as llama-bench reports it when it
  // is given no -t.
  Output bench = Program(
      {kLlamaTools + "/llama-bench", "-m", kModel, "-p", "0", "-n", "1", "-r", "1", "-o", "json"});
  ASSERT_EQ(bench.code, 0) << bench.out;
  const json bench_rows = json::parse(ReadFile(dir_ / "program.out"), nullptr, false);
  ASSERT_TRUE(bench_rows.is_array() && !bench_rows.empty()) << bench.out;
  EXPECT_EQ(p["threads"], bench_rows[0]["n_threads"]) << p.dump();
  ASSERT_TRUE(p["flash_attn"].is_string()) << p.dump();
  EXPECT_TRUE(p["flash_attn"] == "on" || p["flash_attn"] == "off") << p.dump();
  EXPECT_EQ(p["use_mmap"], true) << p.dump();
  EXPECT_EQ(p["n_gpu_layers"], -1) << p.dump();
  // What the experiment set: only Pipette's own n_ctx and depth.
  EXPECT_EQ((*r)["params_set"], (json{{"n_ctx", 256}, {"depth", 0}})) << (*r)["params_set"].dump();
}

TEST_F(E2E, FlashAttentionSetOffIsSentAndItsAliasIsCanonical) {
  fs::path ex = Write("ex.yaml", R"(name: e2e-fa
models: [smollm2-135m-instruct-q4_1]
params:
  threads: 1
  flash_attn: [false, auto]
tests: [tg4]
repetitions: 1
warmup: 0
)");
  Output dry = Pipette({"run", ex.string(), "--store", Store(), "--dry-run"});
  ASSERT_EQ(dry.code, 0) << dry.out << dry.err;
  EXPECT_NE(dry.out.find("flash_attn=off"), std::string::npos) << dry.out;
  Output o = Pipette({"run", ex.string(), "--store", Store(), "--only", "flash_attn=off"});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  const json doc = ReportJson();
  ASSERT_EQ(doc["cells"].size(), 1u);
  const json* r = Find(doc["results"], 1, "tg4", "throughput");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ((*r)["params"]["flash_attn"], "off");
  EXPECT_EQ((*r)["params_set"]["flash_attn"], "off");
  EXPECT_EQ((*r)["params"]["threads"], 1);
}

}  // namespace
}  // namespace pipette_e2e
