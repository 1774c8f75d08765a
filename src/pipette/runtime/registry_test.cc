#include "pipette/runtime/registry.h"

#include <gtest/gtest.h>

#include "pipette/config/params.h"

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
  EXPECT_EQ(Registry().Names(), std::vector<std::string>{"llama.cpp"});
}

TEST(RuntimeRegistry, UnknownNameIsBadInputWithDidYouMean) {
  auto r = Registry().Lookup("llama.cp");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().exit_code, 2);
  EXPECT_EQ(r.error().message,
            "unknown runtime 'llama.cp' (did you mean 'llama.cpp'?) (known: llama.cpp)");
  auto far = Registry().Lookup("onnxruntime");
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.error().message, "unknown runtime 'onnxruntime' (known: llama.cpp)");
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
  const Runtime served{.name = "server", .reach = Endpoint{"http://127.0.0.1:8080"}};
  EXPECT_EQ(served.Worker(), nullptr);
}

TEST(RuntimeRegistry, ParamsAreEveryRuntimesEachNameOnce) {
  using config::ParamDef;
  Runtime a{.name = "a", .reach = WorkerProgram{"wa"}};
  a.params = config::ParamRegistry(
      {ParamDef{.name = "threads", .help = "a's"}, ParamDef{.name = "only_a"}});
  Runtime b{.name = "b", .reach = WorkerProgram{"wb"}};
  b.params = config::ParamRegistry(
      {ParamDef{.name = "threads", .help = "b's"}, ParamDef{.name = "only_b"}});
  const RuntimeRegistry reg({a, b});
  EXPECT_EQ(reg.Params().Names(), (std::vector<std::string>{"threads", "only_a", "only_b"}));
  EXPECT_EQ(reg.Params().Find("threads")->help, "a's");
  EXPECT_EQ(reg.Find("b")->params.Find("threads")->help, "b's");
}

TEST(RuntimeRegistry, TheExperimentParametersAreTheRuntimes) {
  // ParamRegistry::Default() (what `pipette run --help`, docs/config.md and every experiment
  // use) is the registry's parameters: llama.cpp's.
  EXPECT_EQ(config::ParamRegistry::Default().Names(), Registry().Params().Names());
  EXPECT_EQ(Registry().Find("llama.cpp")->params.Names(), Registry().Params().Names());
  EXPECT_NE(Registry().Params().Find("n_ctx"), nullptr);
}

}  // namespace
}  // namespace pipette::runtime
