#include "pipette/runtime/onnxruntime.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "pipette/runtime/registry.h"

namespace pipette::runtime {
namespace {

TEST(OnnxRuntime, EntryNamesItsWorkerFormatAndParams) {
  const Runtime r = OnnxRuntime();
  EXPECT_EQ(r.name, "onnxruntime");
  ASSERT_NE(r.Worker(), nullptr);
  EXPECT_EQ(r.Worker()->program, "pipette-worker-onnxruntime");
  EXPECT_EQ(r.model_formats, std::vector<std::string>{"onnx"});
  EXPECT_TRUE(r.Accepts("onnx"));
  EXPECT_FALSE(r.Accepts("gguf"));
  EXPECT_FALSE(r.makes_variants);  // its worker serves neither quantize nor imatrix
  for (const char* name : {"threads", "n_batch", "graph_optimization"}) {
    EXPECT_NE(r.params.Find(name), nullptr) << name;
  }
  EXPECT_EQ(r.params.Find("n_ubatch"), nullptr);
  EXPECT_EQ(r.params.Find("n_ctx"), nullptr);  // Pipette's own
}

TEST(OnnxRuntime, GraphOptimizationIsALoadChoiceLeftToTheRuntime) {
  const ParamRegistry params = OnnxRuntimeParams();
  const ParamDef* d = params.Find("graph_optimization");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->scope, ParamScope::kLoad);
  EXPECT_EQ(d->choices, (std::vector<std::string>{"disable", "basic", "extended", "all"}));
  EXPECT_FALSE(d->HasDefault());  // unset: not sent, ORT's own (all) applies and is recorded
  EXPECT_EQ(d->request_fields, std::vector<std::string>{"graph_optimization"});
  EXPECT_EQ(d->applied_field, "graph_optimization");
  EXPECT_EQ(params.Parse(*d, "extended").value(), "extended");
  EXPECT_FALSE(params.Parse(*d, "max").ok());
}

// threads and n_batch are llama.cpp's names: one parameter each, listing both runtimes. The
// registry keeps llama.cpp's definition, so what ORT's worker is sent and replies must be what
// its own entry says.
TEST(OnnxRuntime, SharedParametersAreOneEachWithBothRuntimes) {
  const ParamRegistry& all = Registry().Params();
  const ParamRegistry own_params = OnnxRuntimeParams();
  for (const char* name : {"threads", "n_batch"}) {
    const ParamDef* merged = all.Find(name);
    ASSERT_NE(merged, nullptr) << name;
    // threads is the openai runtime's too (a started llama-server's --threads).
    std::vector<std::string> want = {"llama.cpp", "onnxruntime", "openvino", "mnn"};
    if (std::string(name) == "threads") want.push_back("openai");
    EXPECT_EQ(merged->runtimes, want) << name;
    EXPECT_TRUE(merged->BelongsTo("onnxruntime")) << name;
    const ParamDef* own = own_params.Find(name);
    ASSERT_NE(own, nullptr);
    EXPECT_EQ(own->scope, merged->scope) << name;
    EXPECT_EQ(own->applied_field, merged->applied_field) << name;
    for (const std::string& f : own->request_fields) {
      EXPECT_NE(std::find(merged->request_fields.begin(), merged->request_fields.end(), f),
                merged->request_fields.end())
          << name << ": " << f;
    }
  }
  const ParamDef* g = all.Find("graph_optimization");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->runtimes, std::vector<std::string>{"onnxruntime"});
  EXPECT_EQ(all.Find("n_ubatch")->runtimes, std::vector<std::string>{"llama.cpp"});
}

TEST(OnnxRuntime, CellRuleClampsTheBatchToTheContext) {
  CellParams p = {{"threads", "2"}, {"n_batch", "2048"}, {"n_ctx", "300"}};
  OnnxRuntimeResolveCell(p);
  EXPECT_EQ(p, (CellParams{{"threads", "2"}, {"n_batch", "300"}, {"n_ctx", "300"}}));
  CellParams unset = {{"n_ctx", "10"}};  // no padding: ORT runs the context asked for
  OnnxRuntimeResolveCell(unset);
  EXPECT_EQ(unset, (CellParams{{"n_ctx", "10"}}));
}

}  // namespace
}  // namespace pipette::runtime
