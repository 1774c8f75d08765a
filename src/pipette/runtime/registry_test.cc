#include "pipette/runtime/registry.h"

#include <gtest/gtest.h>

#include "pipette/runtime/params.h"

namespace pipette::runtime {
namespace {

TEST(RuntimeRegistry, FindsLlamaCppByItsName) {
  const Runtime* r = Registry().Find("llama.cpp");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->name, "llama.cpp");
  ASSERT_NE(r->Worker(), nullptr);
  EXPECT_EQ(r->Worker()->program, "pipette-worker-llama");
  EXPECT_TRUE(r->makes_variants);
  EXPECT_EQ(Registry().Find("llama"), nullptr);
  EXPECT_EQ(Registry().Names(),
            (std::vector<std::string>{"llama.cpp", "onnxruntime", "openvino", "mnn", "openai"}));
}

TEST(RuntimeRegistry, UnknownNameIsBadInputWithDidYouMean) {
  auto r = Registry().Lookup("llama.cp");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().exit_code, 2);
  EXPECT_EQ(r.error().message,
            "unknown runtime 'llama.cp' (did you mean 'llama.cpp'?) (known: llama.cpp, "
            "onnxruntime, openvino, mnn, openai)");
  auto far = Registry().Lookup("tensorrt");
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.error().message,
            "unknown runtime 'tensorrt' (known: llama.cpp, onnxruntime, openvino, mnn, openai)");
  auto ok = Registry().Lookup("llama.cpp");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)->name, "llama.cpp");
}

TEST(RuntimeRegistry, LlamaCppLoadsGgufOnly) {
  const Runtime* r = Registry().Find("llama.cpp");
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(r->Accepts("gguf"));
  EXPECT_FALSE(r->Accepts("onnx"));
  EXPECT_FALSE(r->Accepts(""));
}

TEST(RuntimeRegistry, EndpointRuntimeHasNoWorkerProgram) {
  const Runtime served{.name = "server", .reach = Endpoint{"bin/server"}};
  EXPECT_EQ(served.Worker(), nullptr);
  EXPECT_TRUE(served.IsEndpoint());
  const Runtime* openai = Registry().Find("openai");
  ASSERT_NE(openai, nullptr);
  EXPECT_TRUE(openai->IsEndpoint());
  EXPECT_EQ(openai->EndpointReach()->bundled_server, "bin/llama-server");
  // What it cannot give is named with its reason.
  EXPECT_NE(openai->unserved.at("score").find("log-probabilities of given tokens"),
            std::string::npos);
  EXPECT_EQ(Registry().Find("llama.cpp")->EndpointReach(), nullptr);
}

TEST(RuntimeRegistry, ParamsAreEveryRuntimesEachNameOnceWithItsRuntimes) {
  Runtime a{.name = "a", .reach = WorkerProgram{"wa"}};
  a.params = ParamRegistry({ParamDef{.name = "threads", .help = "a's", .default_doc = "a's: 4"},
                            ParamDef{.name = "only_a"}});
  Runtime b{.name = "b", .reach = WorkerProgram{"wb"}};
  b.params =
      ParamRegistry({ParamDef{.name = "threads", .help = "b's", .default_doc = "its own choice"},
                     ParamDef{.name = "only_b"}});
  const RuntimeRegistry reg({a, b}, ParamRegistry({}));
  EXPECT_EQ(reg.Params().Names(), (std::vector<std::string>{"threads", "only_a", "only_b"}));
  EXPECT_EQ(reg.Params().Find("threads")->help, "a's");
  // The first's definition, with every runtime's default.
  EXPECT_EQ(reg.Params().Find("threads")->default_doc, "a's: 4; b: its own choice");
  EXPECT_EQ(reg.Find("b")->params.Find("threads")->help, "b's");
  EXPECT_EQ(reg.Params().Find("threads")->runtimes, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(reg.Params().Find("only_b")->runtimes, (std::vector<std::string>{"b"}));
  EXPECT_FALSE(reg.Params().Find("only_b")->BelongsTo("a"));
  EXPECT_EQ(reg.Params().Of({"a"}).Names(), (std::vector<std::string>{"threads", "only_a"}));
}

TEST(RuntimeRegistry, PipettesOwnParametersBelongToEveryRuntimeInTheirOrder) {
  Runtime a{.name = "a", .reach = WorkerProgram{"wa"}};
  a.params = ParamRegistry({ParamDef{.name = "first", .order = 10},
                            ParamDef{.name = "n_ctx", .help = "a's", .order = 20},
                            ParamDef{.name = "last", .order = 30}});
  const RuntimeRegistry reg(
      {a}, ParamRegistry({ParamDef{.name = "n_ctx", .help = "ours", .order = 15}}));
  EXPECT_EQ(reg.Params().Names(), (std::vector<std::string>{"first", "n_ctx", "last"}));
  EXPECT_EQ(reg.Params().Find("n_ctx")->help, "ours");  // a runtime cannot redefine it
  EXPECT_TRUE(reg.Params().Find("n_ctx")->runtimes.empty());
  EXPECT_TRUE(reg.Params().Find("n_ctx")->BelongsTo("any runtime"));
}

// `expected` appear in `names` in this order (cell keys are stored, so the parameters they have
// always had keep their order); a new parameter may come anywhere among them.
bool KeepsOrder(const std::vector<std::string>& names, const std::vector<std::string>& expected) {
  size_t at = 0;
  for (const std::string& n : names) {
    if (at < expected.size() && n == expected[at]) ++at;
  }
  return at == expected.size();
}

TEST(RuntimeRegistry, TheExperimentParametersArePipettesAndTheRuntimes) {
  // ParamRegistry::Default() (what `pipette run --help`, docs/config.md and every experiment
  // use) is the registry's parameters: Pipette's own and llama.cpp's, in the order cell keys
  // have always had (they are stored).
  EXPECT_EQ(ParamRegistry::Default().Names(), Registry().Params().Names());
  EXPECT_TRUE(KeepsOrder(Registry().Params().Names(),
                         {"threads", "n_batch", "n_ubatch", "n_ctx", "type_k", "type_v",
                          "flash_attn", "swa_full", "depth", "n_gpu_layers", "use_mmap"}));
  EXPECT_EQ(Registry().Find("llama.cpp")->params.Find("n_ctx"), nullptr);  // Pipette's own
  EXPECT_TRUE(Registry().Params().Find("n_ctx")->runtimes.empty());
  EXPECT_TRUE(Registry().Params().Find("depth")->runtimes.empty());
  EXPECT_EQ(Registry().Params().Find("flash_attn")->runtimes,
            (std::vector<std::string>{"llama.cpp"}));
}

TEST(RuntimeRegistry, CellParamsLookup) {
  CellParams p = {{"n_ctx", "512"}, {"flash_attn", "on"}};
  ASSERT_NE(FindParam(p, "flash_attn"), nullptr);
  EXPECT_EQ(*FindParam(p, "flash_attn"), "on");
  EXPECT_EQ(FindParam(p, "threads"), nullptr);
  EXPECT_EQ(IntParam(p, "n_ctx"), 512);
  EXPECT_EQ(IntParam(p, "flash_attn"), std::nullopt);  // not a number
  EXPECT_EQ(IntParam(p, "threads"), std::nullopt);
  *FindParam(p, "n_ctx") = "1024";
  EXPECT_EQ(IntParam(p, "n_ctx"), 1024);
}

}  // namespace
}  // namespace pipette::runtime
