#include "pipette/run/runtime_params.h"

#include <gtest/gtest.h>

namespace pipette::run {
namespace {

using nlohmann::json;

const config::ParamRegistry kRegistry = config::ParamRegistry::Default();

plan::Cell CellWith(std::vector<std::pair<std::string, std::string>> params) {
  plan::Cell c;
  c.model.path = "/m/a.gguf";
  c.params = std::move(params);
  return c;
}

TEST(RuntimeParams, OnlyWhatTheExperimentSetsIsSent) {
  const plan::Cell bare = CellWith({{"n_ctx", "256"}, {"depth", "0"}});
  EXPECT_EQ(ContextRequest(bare, kRegistry), (json{{"op", "init_context"}, {"n_ctx", 256}}));
  EXPECT_EQ(LoadRequest(bare, kRegistry), (json{{"op", "load_model"}, {"path", "/m/a.gguf"}}));

  const plan::Cell set = CellWith({{"threads", "2"},
                                   {"n_batch", "128"},
                                   {"n_ctx", "256"},
                                   {"type_v", "q8_0"},
                                   {"flash_attn", "off"},
                                   {"swa_full", "false"},
                                   {"depth", "8"},
                                   {"n_gpu_layers", "0"},
                                   {"use_mmap", "false"}});
  const json ctx = ContextRequest(set, kRegistry);
  EXPECT_EQ(ctx, (json{{"op", "init_context"},
                       {"n_threads", 2},
                       {"n_threads_batch", 2},
                       {"n_batch", 128},
                       {"n_ctx", 256},
                       {"type_v", "q8_0"},
                       {"flash_attn", "off"},
                       {"swa_full", false}}))
      << ctx.dump();
  const json load = LoadRequest(set, kRegistry);
  EXPECT_EQ(
      load,
      (json{{"op", "load_model"}, {"path", "/m/a.gguf"}, {"use_mmap", false}, {"n_gpu_layers", 0}}))
      << load.dump();
  EXPECT_EQ(RequestFacts(ctx).count("op"), 0u);
}

TEST(RuntimeParams, ANewRegistryEntryIsSentWithoutCodeHere) {
  // A registry of one made-up context parameter: the request and what ran follow its entry.
  const config::ParamRegistry r({{.name = "poll",
                                  .kind = config::ParamKind::kInt,
                                  .scope = config::ParamScope::kContext,
                                  .min = 0,
                                  .max = 100,
                                  .request_fields = {"cpu_poll"},
                                  .applied_field = "cpu_poll_applied"}});
  EXPECT_EQ(ContextRequest(CellWith({{"poll", "50"}}), r),
            (json{{"op", "init_context"}, {"cpu_poll", 50}}));
  EXPECT_EQ(ContextRequest(CellWith({}), r), (json{{"op", "init_context"}}));
  EXPECT_EQ(AppliedParams(json::object(), {}, {{"cpu_poll_applied", 0}}, r), (json{{"poll", 0}}));
  EXPECT_EQ(AppliedParams({{"poll", 50}}, {}, {{"cpu_poll_applied", 0}}, r), (json{{"poll", 50}}));
}

TEST(RuntimeParams, WhatRanIsTheSetValuesCompletedByTheRuntimes) {
  const json reply = {{"n_ctx", 256},         {"n_batch", 256},
                      {"n_ubatch", 256},      {"n_threads", 2},
                      {"type_k", "f16"},      {"type_v", "f16"},
                      {"flash_attn", "auto"}, {"flash_attn_resolved", "on"},
                      {"swa_full", true},     {"swa_cache_cells", 256}};
  const json load =
      AppliedLoadParams({{"use_mmap", true}, {"n_gpu_layers", -1}, {"x", 1}}, kRegistry);
  EXPECT_EQ(load, (json{{"use_mmap", true}, {"n_gpu_layers", -1}}));
  const json ran = AppliedParams({{"n_ctx", 256}, {"threads", 1}}, load, reply, kRegistry);
  EXPECT_EQ(ran["threads"], 1);  // set: kept as planned
  EXPECT_EQ(ran["n_batch"], 256);
  EXPECT_EQ(ran["type_v"], "f16");
  EXPECT_EQ(ran["flash_attn"], "on");
  EXPECT_EQ(ran["swa_full"], true);  // unset: libllama's default, as the worker applied it
  EXPECT_EQ(ran["use_mmap"], true);
  EXPECT_EQ(ran["n_gpu_layers"], -1);
  EXPECT_FALSE(ran.contains("depth"));
  EXPECT_FALSE(ran.contains("swa_cache_cells"));  // a fact of the reply, no parameter
  EXPECT_EQ(AppliedParams({{"swa_full", false}}, {}, reply, kRegistry)["swa_full"], false);

  // Asked auto explicitly: what it resolved to; a runtime that did not say leaves "auto".
  EXPECT_EQ(AppliedParams({{"flash_attn", "auto"}}, {}, reply, kRegistry)["flash_attn"], "on");
  json silent = reply;
  silent.erase("flash_attn_resolved");
  EXPECT_EQ(AppliedParams(json::object(), {}, silent, kRegistry)["flash_attn"], "auto");
  // Set on: on, unless the runtime says it turned it off.
  EXPECT_EQ(AppliedParams({{"flash_attn", "on"}}, {}, silent, kRegistry)["flash_attn"], "on");
  json forced = reply;
  forced["flash_attn_resolved"] = "off";
  EXPECT_EQ(AppliedParams({{"flash_attn", "on"}}, {}, forced, kRegistry)["flash_attn"], "off");
  // A value that is none of the choices is not believed.
  forced["flash_attn_resolved"] = "maybe";
  EXPECT_EQ(AppliedParams({{"flash_attn", "on"}}, {}, forced, kRegistry)["flash_attn"], "on");
}

}  // namespace
}  // namespace pipette::run
