// swa_full, added as one registry entry plus the worker's read of it: what the experiment sets
// reaches llama.cpp, whose own log line gives the size of the sliding-window layers' cache.
#include "fixture.h"

namespace pipette_e2e {
namespace {

// The context facts of each cell of the latest run: cell index -> the init_context reply.
std::map<int, json> ContextReplies(const std::string& store_path) {
  std::map<int, json> out;
  auto store = pipette::store::Store::Open(store_path, pipette::store::OpenMode::kReadOnly);
  EXPECT_TRUE(store.ok());
  if (!store.ok()) return out;
  auto runs = (*store)->Runs();
  EXPECT_TRUE(runs.ok() && !runs->empty());
  if (!runs.ok() || runs->empty()) return out;
  auto cells = (*store)->Cells(runs->back().id);
  EXPECT_TRUE(cells.ok());
  if (!cells.ok()) return out;
  for (const auto& c : *cells) {
    auto samples = (*store)->Samples(c.id);
    EXPECT_TRUE(samples.ok());
    if (!samples.ok()) continue;
    for (const auto& s : *samples) {
      if (s.test == "context") out[c.index] = s.raw;
    }
  }
  return out;
}

TEST_F(E2E, SwaFullReachesLlamaCppAndIsRecorded) {
  ASSERT_TRUE(fs::exists(kGemmaModel)) << "run scripts/setup.sh first: " << kGemmaModel;
  // Gemma 3 has sliding-window layers; SmolLM2 has none. 2048 tokens of context: more than the
  // window, so a window-sized cache is smaller than a full one.
  fs::path ex = Write("ex.yaml", R"(name: e2e-swa
models: [gemma3-270m-q4_k_m, smollm2-135m-instruct-q4_1]
params:
  threads: 1
  n_ctx: 2048
  swa_full: [false, true]
tests: [pp16]
repetitions: 1
warmup: 0
)");
  Output o = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("swa_full"), std::string::npos) << "it varies: a column" << o.out;
  const std::map<int, json> ctx = ContextReplies(Store());
  ASSERT_EQ(ctx.size(), 4u);
  // Cells: Gemma false, Gemma true, SmolLM2 false, SmolLM2 true.
  for (const auto& [cell, reply] : ctx) {
    EXPECT_EQ(reply["request"]["swa_full"], cell % 2 == 1) << reply.dump();
    EXPECT_EQ(reply["swa_full"], cell % 2 == 1) << reply.dump();
    EXPECT_EQ(reply["n_ctx"], 2048) << reply.dump();
  }
  ASSERT_TRUE(ctx.at(0)["swa_cache_cells"].is_number_integer()) << ctx.at(0).dump();
  EXPECT_GT(ctx.at(0)["swa_cache_cells"].get<int>(), 0);
  EXPECT_LT(ctx.at(0)["swa_cache_cells"].get<int>(), 2048) << "false: the window, not more";
  EXPECT_EQ(ctx.at(1)["swa_cache_cells"], 2048) << "true: the whole context";
  EXPECT_TRUE(ctx.at(2)["swa_cache_cells"].is_null()) << "SmolLM2 has no sliding window";
  EXPECT_TRUE(ctx.at(3)["swa_cache_cells"].is_null());
  const json doc = ReportJson();
  for (int cell : {1, 2}) {
    const json* r = Find(doc["results"], cell, "pp16", "throughput");
    ASSERT_NE(r, nullptr) << cell;
    EXPECT_EQ((*r)["params"]["swa_full"], cell == 2);
    EXPECT_EQ((*r)["params_set"]["swa_full"], cell == 2);
  }
}

TEST_F(E2E, SwaFullUnsetIsLibllamasDefaultAndNotSent) {
  ASSERT_TRUE(fs::exists(kGemmaModel)) << "run scripts/setup.sh first: " << kGemmaModel;
  fs::path ex = Write("ex.yaml", R"(name: e2e-swa-unset
models: [gemma3-270m-q4_k_m]
params: {threads: 1, n_ctx: 2048}
tests: [pp16]
repetitions: 1
warmup: 0
)");
  Output o = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  const std::map<int, json> ctx = ContextReplies(Store());
  ASSERT_EQ(ctx.size(), 1u);
  EXPECT_FALSE(ctx.at(0)["request"].contains("swa_full")) << ctx.at(0).dump();
  EXPECT_EQ(ctx.at(0)["swa_full"], true) << "llama_context_default_params()";
  EXPECT_EQ(ctx.at(0)["swa_cache_cells"], 2048);
  const json doc = ReportJson();
  const json* r = Find(doc["results"], 1, "pp16", "throughput");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ((*r)["params"]["swa_full"], true);  // what ran
  EXPECT_FALSE((*r)["params_set"].contains("swa_full"));
}

}  // namespace
}  // namespace pipette_e2e
