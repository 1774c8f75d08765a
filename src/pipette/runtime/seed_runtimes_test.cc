// The seed runtimes on workers/python/pipette_decoder: OpenVINO (openvino.h) and MNN (mnn.h).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "pipette/runtime/mnn.h"
#include "pipette/runtime/openvino.h"
#include "pipette/runtime/registry.h"

namespace pipette::runtime {
namespace {

void ExpectSeedEntry(const Runtime& r, const std::string& name, const std::string& format) {
  EXPECT_EQ(r.name, name);
  ASSERT_NE(r.Worker(), nullptr);
  EXPECT_EQ(r.Worker()->program, "pipette-worker-" + name);
  EXPECT_EQ(r.model_formats, std::vector<std::string>{format});
  EXPECT_FALSE(r.Accepts("gguf"));
  EXPECT_FALSE(r.makes_variants);
  EXPECT_FALSE(r.renders_chat_templates);  // the controller renders its prompts
  // Sent as the worker module reads them (pipette_decoder/model_ops.py).
  for (auto [param, field] : {std::pair{"threads", "n_threads"}, std::pair{"n_batch", "n_batch"}}) {
    const ParamDef* d = r.params.Find(param);
    ASSERT_NE(d, nullptr) << name << ": " << param;
    EXPECT_EQ(d->request_fields, std::vector<std::string>{field}) << name << ": " << param;
  }
  EXPECT_EQ(r.params.Find("graph_optimization"), nullptr);  // ONNX Runtime's own
  EXPECT_NE(Registry().Find(name), nullptr);
  CellParams p = {{"n_batch", "2048"}, {"n_ctx", "300"}};
  r.resolve_cell(p);
  EXPECT_EQ(p, (CellParams{{"n_batch", "300"}, {"n_ctx", "300"}}));
}

TEST(SeedRuntimes, OpenVinoLoadsOnnxFolders) { ExpectSeedEntry(OpenVino(), "openvino", "onnx"); }

TEST(SeedRuntimes, MnnLoadsMnnFolders) { ExpectSeedEntry(Mnn(), "mnn", "mnn"); }

}  // namespace
}  // namespace pipette::runtime
