#include "pipette/run/runtime_params.h"

#include <gtest/gtest.h>

namespace pipette::run {
namespace {

using nlohmann::json;

plan::Cell CellWith(std::vector<std::pair<std::string, std::string>> params) {
  plan::Cell c;
  c.model.path = "/m/a.gguf";
  c.params = std::move(params);
  return c;
}

TEST(RuntimeParams, OnlyWhatTheExperimentSetsIsSent) {
  const plan::Cell bare = CellWith({{"n_ctx", "256"}, {"depth", "0"}});
  EXPECT_EQ(ContextRequest(bare), (json{{"op", "init_context"}, {"n_ctx", 256}}));
  EXPECT_EQ(LoadRequest(bare), (json{{"op", "load_model"}, {"path", "/m/a.gguf"}}));

  const plan::Cell set = CellWith({{"threads", "2"},
                                   {"n_batch", "128"},
                                   {"n_ctx", "256"},
                                   {"type_v", "q8_0"},
                                   {"flash_attn", "off"},
                                   {"n_gpu_layers", "0"},
                                   {"use_mmap", "false"}});
  const json ctx = ContextRequest(set);
  EXPECT_EQ(ctx["n_threads"], 2);
  EXPECT_EQ(ctx["n_threads_batch"], 2);
  EXPECT_EQ(ctx["n_batch"], 128);
  EXPECT_EQ(ctx["type_v"], "q8_0");
  EXPECT_EQ(ctx["flash_attn"], "off");
  EXPECT_FALSE(ctx.contains("n_ubatch"));
  EXPECT_FALSE(ctx.contains("type_k"));
  const json load = LoadRequest(set);
  EXPECT_EQ(load["use_mmap"], false);
  EXPECT_EQ(load["n_gpu_layers"], 0);
  EXPECT_EQ(RequestFacts(ctx).count("op"), 0u);
}

TEST(RuntimeParams, WhatRanIsTheSetValuesCompletedByTheRuntimes) {
  const json reply = {
      {"n_ctx", 256},    {"n_batch", 256},  {"n_ubatch", 256},      {"n_threads", 2},
      {"type_k", "f16"}, {"type_v", "f16"}, {"flash_attn", "auto"}, {"flash_attn_resolved", "on"}};
  const json load = AppliedLoadParams({{"use_mmap", true}, {"n_gpu_layers", -1}, {"x", 1}});
  EXPECT_EQ(load, (json{{"use_mmap", true}, {"n_gpu_layers", -1}}));
  const json ran = AppliedParams({{"n_ctx", 256}, {"threads", 1}}, load, reply);
  EXPECT_EQ(ran["threads"], 1);  // set: kept as planned
  EXPECT_EQ(ran["n_batch"], 256);
  EXPECT_EQ(ran["type_v"], "f16");
  EXPECT_EQ(ran["flash_attn"], "on");
  EXPECT_EQ(ran["use_mmap"], true);
  EXPECT_EQ(ran["n_gpu_layers"], -1);

  // Asked auto explicitly: what it resolved to; a runtime that did not say leaves "auto".
  EXPECT_EQ(AppliedParams({{"flash_attn", "auto"}}, {}, reply)["flash_attn"], "on");
  json silent = reply;
  silent.erase("flash_attn_resolved");
  EXPECT_EQ(AppliedParams(json::object(), {}, silent)["flash_attn"], "auto");
  // Set on: on, unless the runtime says it turned it off.
  EXPECT_EQ(AppliedParams({{"flash_attn", "on"}}, {}, silent)["flash_attn"], "on");
  json forced = reply;
  forced["flash_attn_resolved"] = "off";
  EXPECT_EQ(AppliedParams({{"flash_attn", "on"}}, {}, forced)["flash_attn"], "off");
}

}  // namespace
}  // namespace pipette::run
