#include "pipette/run/runtime_params.h"

#include <gtest/gtest.h>

#include "pipette/runtime/llama.h"
#include "pipette/runtime/registry.h"

namespace pipette::run {
namespace {

using nlohmann::json;

const runtime::ParamRegistry kRegistry = runtime::ParamRegistry::Default();

plan::Cell CellWith(std::vector<std::pair<std::string, std::string>> params) {
  plan::Cell c;
  c.model.path = "/m/a.gguf";
  c.runtime.name = "llama.cpp";
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

// One made-up context parameter, `poll`, sent as cpu_poll and applied as cpu_poll_applied.
runtime::ParamRegistry PollParams() {
  return runtime::ParamRegistry({{.name = "poll",
                                  .kind = runtime::ParamKind::kInt,
                                  .scope = runtime::ParamScope::kContext,
                                  .min = 0,
                                  .max = 100,
                                  .request_fields = {"cpu_poll"},
                                  .applied_field = "cpu_poll_applied"}});
}

TEST(RuntimeParams, ANewRegistryEntryIsSentWithoutCodeHere) {
  // A registry of one made-up context parameter: the request and what ran follow its entry.
  const runtime::ParamRegistry r = PollParams();
  // n_ctx is a field of the request itself (protocol::InitContextRequest): 0 for a cell without
  // it (a cell of a plan always holds Pipette's n_ctx).
  EXPECT_EQ(ContextRequest(CellWith({{"poll", "50"}}), r),
            (json{{"op", "init_context"}, {"n_ctx", 0}, {"cpu_poll", 50}}));
  EXPECT_EQ(ContextRequest(CellWith({}), r), (json{{"op", "init_context"}, {"n_ctx", 0}}));
  EXPECT_EQ(AppliedParams(json::object(), {}, {{"cpu_poll_applied", 0}}, r, "llama.cpp"),
            (json{{"poll", 0}}));
  EXPECT_EQ(AppliedParams({{"poll", 50}}, {}, {{"cpu_poll_applied", 0}}, r, "llama.cpp"),
            (json{{"poll", 50}}));
}

TEST(RuntimeParams, WhatRanIsTheSetValuesCompletedByTheRuntimes) {
  const json reply = {{"n_ctx", 256},         {"n_batch", 256},
                      {"n_ubatch", 256},      {"n_threads", 2},
                      {"type_k", "f16"},      {"type_v", "f16"},
                      {"flash_attn", "auto"}, {"flash_attn_resolved", "on"},
                      {"swa_full", true},     {"swa_cache_cells", 256}};
  const json load = AppliedLoadParams({{"use_mmap", true}, {"n_gpu_layers", -1}, {"x", 1}},
                                      kRegistry, "llama.cpp");
  EXPECT_EQ(load, (json{{"use_mmap", true}, {"n_gpu_layers", -1}}));
  const json ran =
      AppliedParams({{"n_ctx", 256}, {"threads", 1}}, load, reply, kRegistry, "llama.cpp");
  EXPECT_EQ(ran["threads"], 1);  // set: kept as planned
  EXPECT_EQ(ran["n_batch"], 256);
  EXPECT_EQ(ran["type_v"], "f16");
  EXPECT_EQ(ran["flash_attn"], "on");
  EXPECT_EQ(ran["swa_full"], true);  // unset: libllama's default, as the worker applied it
  EXPECT_EQ(ran["use_mmap"], true);
  EXPECT_EQ(ran["n_gpu_layers"], -1);
  EXPECT_FALSE(ran.contains("depth"));
  EXPECT_FALSE(ran.contains("swa_cache_cells"));  // a fact of the reply, no parameter
  EXPECT_EQ(AppliedParams({{"swa_full", false}}, {}, reply, kRegistry, "llama.cpp")["swa_full"],
            false);

  // Asked auto explicitly: what it resolved to; a runtime that did not say leaves "auto".
  EXPECT_EQ(
      AppliedParams({{"flash_attn", "auto"}}, {}, reply, kRegistry, "llama.cpp")["flash_attn"],
      "on");
  json silent = reply;
  silent.erase("flash_attn_resolved");
  EXPECT_EQ(AppliedParams(json::object(), {}, silent, kRegistry, "llama.cpp")["flash_attn"],
            "auto");
  // Set on: on, unless the runtime says it turned it off.
  EXPECT_EQ(AppliedParams({{"flash_attn", "on"}}, {}, silent, kRegistry, "llama.cpp")["flash_attn"],
            "on");
  json forced = reply;
  forced["flash_attn_resolved"] = "off";
  EXPECT_EQ(AppliedParams({{"flash_attn", "on"}}, {}, forced, kRegistry, "llama.cpp")["flash_attn"],
            "off");
  // A value that is none of the choices is not believed.
  forced["flash_attn_resolved"] = "maybe";
  EXPECT_EQ(AppliedParams({{"flash_attn", "on"}}, {}, forced, kRegistry, "llama.cpp")["flash_attn"],
            "on");
}

// Two runtimes: llama.cpp and a made-up one with only its own `poll` (and Pipette's own).
runtime::RuntimeRegistry TwoRuntimes() {
  runtime::Runtime other{.name = "other", .reach = runtime::WorkerProgram{"w"}};
  other.params = PollParams();
  return runtime::RuntimeRegistry({runtime::LlamaCpp(), other});
}

TEST(RuntimeParams, AWorkerIsSentOnlyItsRuntimesParameters) {
  const runtime::RuntimeRegistry runtimes = TwoRuntimes();
  const runtime::ParamRegistry& r = runtimes.Params();
  plan::Cell c = CellWith({{"n_ctx", "256"}, {"flash_attn", "on"}, {"poll", "5"}});
  EXPECT_EQ(ContextRequest(c, r),
            (json{{"op", "init_context"}, {"n_ctx", 256}, {"flash_attn", "on"}}));
  c.runtime.name = "other";
  EXPECT_EQ(ContextRequest(c, r), (json{{"op", "init_context"}, {"n_ctx", 256}, {"cpu_poll", 5}}));
  // What ran: another runtime's parameter is never added (llama.cpp's flash_attn "auto").
  const json reply = {{"flash_attn_resolved", "on"}, {"cpu_poll_applied", 7}};
  EXPECT_EQ(AppliedParams({{"n_ctx", 256}}, {}, reply, r, "other"),
            (json{{"n_ctx", 256}, {"poll", 7}}));
  EXPECT_EQ(AppliedParams({{"n_ctx", 256}}, {}, reply, r, "llama.cpp"),
            (json{{"n_ctx", 256}, {"flash_attn", "on"}}));
  EXPECT_EQ(AppliedLoadParams({{"use_mmap", true}}, r, "other"), json::object());
}

TEST(RuntimeParams, AParameterToApplyAsPlannedMustBeApplied) {
  const plan::Cell c = CellWith({{"n_batch", "256"}, {"n_ctx", "512"}, {"threads", "2"}});
  auto changed = [&](const json& reply) {
    Status st = AppliedAsPlanned(c, {}, reply, kRegistry);
    return st ? std::string("(as planned)") : st.error().message;
  };
  // threads need not be applied as planned; an unreported one is not checked
  EXPECT_EQ(changed({{"n_ctx", 512}, {"n_batch", 256}, {"n_threads", 4}}), "(as planned)");
  EXPECT_EQ(changed({{"n_ctx", 512}, {"n_batch", 128}}),
            "the runtime applied n_batch 128 instead of the planned 256");
  EXPECT_EQ(changed({{"n_ctx", 768}}), "the runtime applied n_ctx 768 instead of the planned 512");
}

}  // namespace
}  // namespace pipette::run
