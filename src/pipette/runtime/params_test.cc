#include "pipette/runtime/params.h"

#include <gtest/gtest.h>

namespace pipette::runtime {
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

TEST(Params, SwaFullIsOneEntry) {
  const ParamRegistry r = ParamRegistry::Default();
  const ParamDef* d = r.Find("swa_full");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->kind, ParamKind::kBool);
  EXPECT_EQ(d->scope, ParamScope::kContext);
  EXPECT_FALSE(d->HasDefault());  // unset: libllama's own (true) applies, nothing is sent
  EXPECT_EQ(d->request_fields, std::vector<std::string>{"swa_full"});
  EXPECT_EQ(d->applied_field, "swa_full");
  EXPECT_EQ(*r.Parse(*d, "no"), "false");
  EXPECT_EQ(ParamRegistry::ToJson(*d, "false"), false);
  EXPECT_EQ(Nearest("swa-full"), "swa_full");
}

TEST(Params, EveryEntrySaysEverythingAboutItself) {
  const ParamRegistry r = ParamRegistry::Default();
  for (const ParamDef& d : r.defs()) {
    EXPECT_FALSE(d.help.empty()) << d.name;
    EXPECT_FALSE(d.default_doc.empty()) << d.name;
    EXPECT_FALSE(d.column.empty()) << d.name;
    // A load or context parameter reaches the worker in its stage's request; a test parameter
    // is the runner's own.
    EXPECT_EQ(d.request_fields.empty(), d.scope == ParamScope::kTest) << d.name;
    EXPECT_EQ(d.kind == ParamKind::kChoice, !d.choices.empty()) << d.name;
    if (d.kind == ParamKind::kInt) {
      EXPECT_LT(d.min, d.max) << d.name;
    }
    if (d.HasDefault()) {
      EXPECT_TRUE(r.Parse(d, d.default_value).ok()) << d.name;
    }
  }
  // Report columns are what reports have always shown: the parameters' names.
  EXPECT_EQ(r.Column("flash_attn"), "flash_attn");
  EXPECT_EQ(r.Column("threads"), "threads");
  EXPECT_EQ(r.Column("not_a_parameter"), "not_a_parameter");
}

}  // namespace
}  // namespace pipette::runtime
