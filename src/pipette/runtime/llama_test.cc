#include "pipette/runtime/llama.h"

#include <gtest/gtest.h>

namespace pipette::runtime {
namespace {

TEST(LlamaRuntime, PadsTheContextToAMultipleOf256) {
  EXPECT_EQ(LlamaPaddedContext(0), 256);
  EXPECT_EQ(LlamaPaddedContext(1), 256);
  EXPECT_EQ(LlamaPaddedContext(256), 256);
  EXPECT_EQ(LlamaPaddedContext(257), 512);
  EXPECT_EQ(LlamaPaddedContext(300), 512);
  EXPECT_EQ(LlamaPaddedContext(4096), 4096);
}

TEST(LlamaRuntime, CellRuleClampsBatchesToThePaddedContext) {
  CellParams p = {{"threads", "2"}, {"n_batch", "2048"}, {"n_ubatch", "4096"}, {"n_ctx", "300"}};
  LlamaResolveCell(p);
  EXPECT_EQ(
      p, (CellParams{{"threads", "2"}, {"n_batch", "512"}, {"n_ubatch", "512"}, {"n_ctx", "512"}}));
  CellParams small = {{"n_batch", "128"}, {"n_ubatch", "512"}, {"n_ctx", "1000"}};
  LlamaResolveCell(small);
  EXPECT_EQ(small, (CellParams{{"n_batch", "128"}, {"n_ubatch", "128"}, {"n_ctx", "1024"}}));
}

TEST(LlamaRuntime, CellRuleLeavesUnsetBatchesUnset) {
  CellParams p = {{"n_ctx", "10"}, {"depth", "0"}};
  LlamaResolveCell(p);
  EXPECT_EQ(p, (CellParams{{"n_ctx", "256"}, {"depth", "0"}}));
}

TEST(LlamaRuntime, EntryNamesItsWorkerFormatsParamsAndRule) {
  const Runtime r = LlamaCpp();
  EXPECT_EQ(r.name, "llama.cpp");
  ASSERT_NE(r.Worker(), nullptr);
  EXPECT_EQ(r.Worker()->program, "pipette-worker-llama");
  EXPECT_EQ(r.model_formats, std::vector<std::string>{"gguf"});
  // Its own: n_ctx and depth are Pipette's (runtime/pipette_params.cc).
  EXPECT_EQ(r.params.Find("n_ctx"), nullptr);
  EXPECT_EQ(r.params.Find("depth"), nullptr);
  for (const char* name : {"threads", "n_batch", "n_ubatch", "type_k", "type_v", "flash_attn",
                           "swa_full", "n_gpu_layers", "use_mmap"}) {
    EXPECT_NE(r.params.Find(name), nullptr) << name;
  }
  ASSERT_TRUE(r.resolve_cell);
  CellParams p = {{"n_ctx", "257"}};
  r.resolve_cell(p);
  EXPECT_EQ(p[0].second, "512");
}

}  // namespace
}  // namespace pipette::runtime
