#include "pipette/config/params.h"

#include <gtest/gtest.h>

namespace pipette::config {
namespace {

std::string Nearest(const std::string& name) {
  const ParamRegistry registry = ParamRegistry::Default();
  const ParamDef* d = registry.Nearest(name);
  return d ? d->name : "";
}

TEST(Params, LlamaCppNamesFindTheParameter) {
  // The names of llama.cpp's context fields and of its tools' flags.
  EXPECT_EQ(Nearest("n_threads"), "threads");
  EXPECT_EQ(Nearest("n_thread"), "threads");
  EXPECT_EQ(Nearest("t"), "threads");
  EXPECT_EQ(Nearest("--threads"), "threads");
  EXPECT_EQ(Nearest("fa"), "flash_attn");
  EXPECT_EQ(Nearest("flash-attn"), "flash_attn");
  EXPECT_EQ(Nearest("ctx_size"), "n_ctx");
  EXPECT_EQ(Nearest("--ctx-size"), "n_ctx");
  EXPECT_EQ(Nearest("c"), "n_ctx");
  EXPECT_EQ(Nearest("batch_size"), "n_batch");
  EXPECT_EQ(Nearest("b"), "n_batch");
  EXPECT_EQ(Nearest("ubatch_size"), "n_ubatch");
  EXPECT_EQ(Nearest("ub"), "n_ubatch");
  EXPECT_EQ(Nearest("cache_type_k"), "type_k");
  EXPECT_EQ(Nearest("ctk"), "type_k");
  EXPECT_EQ(Nearest("cache-type-v"), "type_v");
  EXPECT_EQ(Nearest("ctv"), "type_v");
  EXPECT_EQ(Nearest("ngl"), "n_gpu_layers");
  EXPECT_EQ(Nearest("mmap"), "use_mmap");
  EXPECT_EQ(Nearest("n_depth"), "depth");
  // Typos of a name or of an alias.
  EXPECT_EQ(Nearest("thread"), "threads");
  EXPECT_EQ(Nearest("n_bacth"), "n_batch");
  EXPECT_EQ(Nearest("cache_typ_k"), "type_k");
  EXPECT_EQ(Nearest("Threads"), "threads");
}

TEST(Params, ShortAliasesMatchOnlyAsWritten) {
  // One letter off "t", "c" or "b" is no likely typo.
  EXPECT_EQ(Nearest("x"), "");
  EXPECT_EQ(Nearest("ua"), "");
  EXPECT_EQ(Nearest("colour"), "");
}

TEST(Params, AnAliasIsStillNotAParameter) {
  const ParamRegistry r = ParamRegistry::Default();
  EXPECT_EQ(r.Find("n_threads"), nullptr);
  ASSERT_NE(r.FindAlias("n_threads"), nullptr);
  EXPECT_EQ(r.FindAlias("thread"), nullptr);  // a typo, not an alias
  EXPECT_EQ(r.DidYouMean("n_thread"), " (did you mean 'threads'?)");
  EXPECT_EQ(r.DidYouMean("zz"), "");
}

}  // namespace
}  // namespace pipette::config
