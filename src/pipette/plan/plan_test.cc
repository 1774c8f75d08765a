#include "pipette/plan/plan.h"

#include <gtest/gtest.h>

#include "pipette/runtime/llama.h"
#include "pipette/workload/mc/spec.h"
#include "pipette/workload/registry.h"
#include "pipette/workload/speed/test_kinds.h"

namespace pipette::plan {
namespace {

using config::Experiment;
using runtime::ParamRegistry;

// A registry with one load-scope parameter and two context ones, to test ordering.
ParamRegistry TestRegistry() {
  using runtime::ParamKind;
  using runtime::ParamScope;
  return ParamRegistry({
      {"threads", "", ParamKind::kInt, ParamScope::kContext, "1", {}, 1, 64, "threads"},
      {"n_ctx", "", ParamKind::kInt, ParamScope::kContext, "0", {}, 0, 1 << 20, "n_ctx"},
      {"depth", "", ParamKind::kInt, ParamScope::kTest, "0", {}, 0, 1 << 20, "depth"},
      {"use_mmap", "", ParamKind::kBool, ParamScope::kLoad, "true", {}, 0, 0, "mmap"},
  });
}

// One runtime named llama.cpp with TestRegistry() as its parameters and llama.cpp's cell rule.
runtime::RuntimeRegistry TestRuntimes() {
  return runtime::RuntimeRegistry({runtime::Runtime{.name = "llama.cpp",
                                                    .params = TestRegistry(),
                                                    .resolve_cell = runtime::LlamaResolveCell}},
                                  ParamRegistry({}));
}

Experiment TwoModels() {
  Experiment ex;
  ex.path = "ex.yaml";
  ex.models = {{"a", "/m/a.gguf", "path", 1}, {"b", "/m/b.gguf", "path", 2}};
  ex.runtimes = {{"llama.cpp", "/w/worker", 3}};
  ex.params = {{"threads", {"1", "2", "4"}},
               {"n_ctx", {"0"}},
               {"depth", {"0"}},
               {"use_mmap", {"true", "false"}}};
  ex.tests = {*workload::ParseTestName("pp512"), *workload::ParseTestName("tg128")};
  return ex;
}

TEST(Plan, CrossProductOrderedForFewestModelLoads) {
  const ParamRegistry reg = TestRegistry();
  auto cells = Expand(TwoModels(), TestRuntimes(), workload::PlanNeeds());
  ASSERT_TRUE(cells.ok()) << cells.error().message;
  ASSERT_EQ(cells->size(), 2u * 3u * 2u);
  // Model outermost, then the load-scope parameter, then threads fastest.
  EXPECT_EQ((*cells)[0].Key(),
            "model=a,runtime=llama.cpp,threads=1,n_ctx=512,depth=0,use_mmap=true");
  EXPECT_EQ((*cells)[1].Param("threads"), "2");
  EXPECT_EQ((*cells)[1].label, "a threads=2 use_mmap=true");
  EXPECT_EQ((*cells)[2].Param("threads"), "4");
  EXPECT_EQ((*cells)[3].Param("use_mmap"), "false");
  EXPECT_EQ((*cells)[6].model.name, "b");
  int loads = 0;
  std::string last;
  for (const Cell& c : *cells) {
    EXPECT_EQ(c.index, &c - cells->data());
    if (c.LoadKey(reg) != last) ++loads;
    last = c.LoadKey(reg);
  }
  EXPECT_EQ(loads, 4);  // 2 models x 2 mmap settings, not 12
}

// llama.cpp, which runs on other devices, and a runtime that does not.
runtime::RuntimeRegistry DevicesRuntimes() {
  return runtime::RuntimeRegistry({runtime::Runtime{.name = "llama.cpp",
                                                    .params = TestRegistry(),
                                                    .resolve_cell = runtime::LlamaResolveCell,
                                                    .runs_on_devices = true},
                                   runtime::Runtime{.name = "other", .params = TestRegistry()}},
                                  ParamRegistry({}));
}

// A tier of this machine runs every runtime whose worker Pipette starts (the worker is this
// machine's own), and its cells are keyed by its name.
TEST(Plan, ATierOfThisMachineRunsEveryStartedRuntime) {
  Experiment ex = TwoModels();
  config::DeviceSpec low;
  low.name = "low";
  low.kind = "local";
  low.tier = {{"memory_bytes", 1 << 30}};
  ex.devices = {low};
  auto runtimes = DevicesRuntimes();
  ex.runtimes.push_back({"other", "/w/other", 4});
  auto cells = Expand(ex, runtimes, workload::PlanNeeds());
  ASSERT_TRUE(cells.ok()) << cells.error().message;
  EXPECT_EQ(cells->size(), 24u);  // both runtimes
  EXPECT_EQ((*cells)[0].Key(),
            "model=a,runtime=llama.cpp,threads=1,n_ctx=512,depth=0,use_mmap=true,device=low");
  EXPECT_TRUE(LeftOut(ex, runtimes).empty());
}

// Devices are the slowest dimension: every cell of one device, then the next; a local cell's
// key is what it was before devices (stores made then resume), another device's names it. A
// runtime that does not run on other devices has no cells there, and LeftOut says so.
TEST(Plan, DevicesVarySlowestAndOnlyRuntimesThatRunThereGetCells) {
  const ParamRegistry reg = TestRegistry();
  Experiment ex = TwoModels();
  config::DeviceSpec board;
  board.name = "board";
  board.kind = "ssh";
  ex.devices = {config::DeviceSpec{}, board};
  auto runtimes = DevicesRuntimes();
  ex.runtimes.push_back({"other", "/w/other", 4});
  auto cells = Expand(ex, runtimes, workload::PlanNeeds());
  ASSERT_TRUE(cells.ok()) << cells.error().message;
  ASSERT_EQ(cells->size(), 24u + 12u);  // local: both runtimes; board: llama.cpp
  EXPECT_EQ((*cells)[0].device.name, "local");
  EXPECT_EQ((*cells)[0].Key(),
            "model=a,runtime=llama.cpp,threads=1,n_ctx=512,depth=0,use_mmap=true");
  const Cell& first_on_board = (*cells)[24];
  EXPECT_EQ(first_on_board.device.name, "board");
  EXPECT_EQ(first_on_board.Key(),
            "model=a,runtime=llama.cpp,threads=1,n_ctx=512,depth=0,use_mmap=true,device=board");
  EXPECT_EQ(first_on_board.label, "a llama.cpp on board threads=1 use_mmap=true");
  EXPECT_NE(first_on_board.LoadKey(reg), (*cells)[0].LoadKey(reg));  // a worker of its own
  for (size_t i = 24; i < cells->size(); ++i) EXPECT_EQ((*cells)[i].runtime.name, "llama.cpp");
  EXPECT_EQ(LeftOut(ex, runtimes),
            (std::vector<std::string>{
                "runtime 'other' runs only on this machine (its worker is not a program built "
                "for other devices): it has no cells on device 'board'"}));
  auto narrowed = Narrow(*cells, "device=board,threads=2", reg);
  ASSERT_TRUE(narrowed.ok()) << narrowed.error().message;
  EXPECT_EQ(narrowed->size(), 4u);  // 2 models x 2 mmap settings
  auto none = Narrow(*cells, "device=phone", reg);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "--only: no cell has device=phone (values: local, board)");
}

TEST(Plan, AutoContextFitsTheLargestTest) {
  Experiment ex = TwoModels();
  ex.params[2].second = {"1000"};
  auto cells = Expand(ex, TestRuntimes(), workload::PlanNeeds());
  ASSERT_TRUE(cells.ok());
  // pp512 after the depth's 1000 tokens, rounded up to a multiple of 256.
  EXPECT_EQ((*cells)[0].Param("n_ctx"), "1536");
}

TEST(Plan, TooSmallContextIsAnInputError) {
  Experiment ex = TwoModels();
  ex.params[1].second = {"256"};
  auto cells = Expand(ex, TestRuntimes(), workload::PlanNeeds());
  ASSERT_FALSE(cells.ok());
  EXPECT_EQ(cells.error().exit_code, 2);
  EXPECT_NE(cells.error().message.find("n_ctx 256 is too small"), std::string::npos);
}

// The plan asks only the context needs it is given (plan/ never fetches the workloads).
TEST(Plan, TheContextNeedsAreTheOnesGiven) {
  Experiment ex = TwoModels();
  ContextNeeds needs{.tokens = [](const Experiment&, int64_t depth) { return 3000 + depth; },
                     .what = [](const Experiment&, int64_t) { return "a made-up workload"; }};
  auto cells = Expand(ex, TestRuntimes(), needs);
  ASSERT_TRUE(cells.ok()) << cells.error().message;
  EXPECT_EQ((*cells)[0].Param("n_ctx"), "3072");  // 3000, rounded up to a multiple of 256
  ex.params[1].second = {"2048"};
  auto small = Expand(ex, TestRuntimes(), needs);
  ASSERT_FALSE(small.ok());
  EXPECT_NE(small.error().message.find("at depth 0, for a made-up workload"), std::string::npos)
      << small.error().message;
  // Without them no cell would be sized for its tests: refused, never a plan of n_ctx 256.
  auto none = Expand(ex, TestRuntimes(), ContextNeeds{});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "plan::Expand: the context needs must give both tokens and what");
  EXPECT_FALSE(Expand(ex, TestRuntimes(), ContextNeeds{.tokens = needs.tokens, .what = {}}).ok());
}

TEST(Plan, ThousandsOfCellsExpandQuickly) {
  Experiment ex = TwoModels();
  std::vector<std::string> many;
  for (int i = 1; i <= 64; ++i) many.push_back(std::to_string(i));
  ex.params[0].second = many;
  ex.params[2].second = {"0", "1", "2", "3", "4", "5", "6", "7"};
  auto cells = Expand(ex, TestRuntimes(), workload::PlanNeeds());
  ASSERT_TRUE(cells.ok());
  EXPECT_EQ(cells->size(), 2u * 64u * 8u * 2u);
}

}  // namespace
}  // namespace pipette::plan

namespace pipette::plan {
namespace {

Experiment WithBatches(std::vector<std::string> n_batch, std::string n_ctx) {
  const ParamRegistry reg = ParamRegistry::Default();
  Experiment ex;
  ex.path = "ex.yaml";
  ex.models = {{"a", "/m/a.gguf", "path", 1}};
  ex.runtimes = {{"llama.cpp", "/w/worker", 2}};
  // As an experiment file that sets n_batch, n_ubatch and n_ctx makes it (registry order).
  for (const auto& d : reg.defs()) {
    if (d.name == "n_batch") ex.params.push_back({d.name, n_batch});
    if (d.name == "n_ubatch") ex.params.push_back({d.name, {"512"}});
    if (d.name == "n_ctx") ex.params.push_back({d.name, {n_ctx}});
    if (d.name == "depth") ex.params.push_back({d.name, {"0"}});
  }
  ex.param_lines["n_batch"] = 7;
  ex.tests = {*workload::ParseTestName("pp64")};
  return ex;
}

TEST(Plan, StoredBatchIsTheBatchThatRuns) {
  auto cells = Expand(WithBatches({"2048"}, "0"), runtime::Registry(), workload::PlanNeeds());
  ASSERT_TRUE(cells.ok()) << cells.error().message;
  EXPECT_EQ((*cells)[0].Param("n_ctx"), "256");  // 64 tokens, rounded up to 256
  EXPECT_EQ((*cells)[0].Param("n_batch"), "256");
  EXPECT_EQ((*cells)[0].Param("n_ubatch"), "256");
  auto padded = Expand(WithBatches({"128"}, "300"), runtime::Registry(), workload::PlanNeeds());
  ASSERT_TRUE(padded.ok());
  EXPECT_EQ((*padded)[0].Param("n_ctx"), "512");
  EXPECT_EQ((*padded)[0].Param("n_batch"), "128");
  EXPECT_EQ((*padded)[0].Param("n_ubatch"), "128");
}

TEST(Plan, ContextBeyondTheModelsTrainingIsAnInputError) {
  Experiment ex = WithBatches({"128"}, "0");
  ex.models[0].n_ctx_train = 8192;
  ex.tests = {*workload::ParseTestName("pp16000")};
  auto cells = Expand(ex, runtime::Registry(), workload::PlanNeeds());
  ASSERT_FALSE(cells.ok());
  EXPECT_EQ(cells.error().exit_code, 2);
  EXPECT_NE(cells.error().message.find("trained for a context of 8192 tokens"), std::string::npos)
      << cells.error().message;
  EXPECT_NE(cells.error().message.find("the tests need n_ctx 16000 (for the test pp16000)"),
            std::string::npos)
      << cells.error().message;
}

// An item too long for the model's context is named by its dataset and line, not only by the
// tokens it needs.
TEST(Plan, AContextTooLongForTheModelNamesTheItemThatNeedsIt) {
  Experiment ex = WithBatches({"128"}, "0");
  ex.models[0].n_ctx_train = 8192;
  workload::McSpec mc;
  mc.dataset = "/data/long.jsonl";
  mc.max_bytes = 100000;
  mc.max_line = 7;
  mc.n_items = 9;
  workload::SetMcSpec(&ex, mc);
  auto cells = Expand(ex, runtime::Registry(), workload::PlanNeeds());
  ASSERT_FALSE(cells.ok());
  EXPECT_EQ(cells.error().exit_code, 2);
  EXPECT_NE(cells.error().message.find("the tests need n_ctx 100008 (for the mc item at "
                                       "/data/long.jsonl:7: 100000 bytes of question and choice)"),
            std::string::npos)
      << cells.error().message;
}

TEST(Plan, ValuesThatCollapseIntoOneCellAreAnInputError) {
  auto cells =
      Expand(WithBatches({"512", "1024"}, "0"), runtime::Registry(), workload::PlanNeeds());
  ASSERT_FALSE(cells.ok());
  EXPECT_EQ(cells.error().exit_code, 2);
  EXPECT_EQ(cells.error().message.rfind("ex.yaml:7: cells 1 and 2 are the same", 0), 0u)
      << cells.error().message;
  EXPECT_TRUE(
      Expand(WithBatches({"128", "256"}, "0"), runtime::Registry(), workload::PlanNeeds()).ok());
}

}  // namespace
}  // namespace pipette::plan

namespace pipette::plan {
namespace {

TEST(Plan, NarrowKeepsMatchingCellsAndSaysWhatExists) {
  const ParamRegistry reg = TestRegistry();
  auto cells = Expand(TwoModels(), TestRuntimes(), workload::PlanNeeds());
  ASSERT_TRUE(cells.ok());
  auto two = Narrow(*cells, "threads=2,model=b", reg);
  ASSERT_TRUE(two.ok()) << two.error().message;
  ASSERT_EQ(two->size(), 2u);  // mmap on and off
  EXPECT_EQ((*two)[0].index, 0);
  EXPECT_EQ((*two)[1].index, 1);
  EXPECT_EQ((*two)[0].model.name, "b");
  auto none = Narrow(*cells, "threads=3", reg);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().exit_code, 2);
  EXPECT_EQ(none.error().message, "--only: no cell has threads=3 (values: 1, 2, 4)");
  auto typo = Narrow(*cells, "thread=2", reg);
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.error().message, "--only: unknown key 'thread' (did you mean 'threads'?)");
  EXPECT_FALSE(Narrow(*cells, "threads", reg).ok());
}

TEST(Plan, NarrowKeepsTheReferenceTheOthersAreComparedWith) {
  const ParamRegistry reg = TestRegistry();
  auto cells = Expand(TwoModels(), TestRuntimes(), workload::PlanNeeds());
  ASSERT_TRUE(cells.ok());
  auto b = Narrow(*cells, "model=b,threads=2,use_mmap=true", reg, "a");
  ASSERT_TRUE(b.ok()) << b.error().message;
  ASSERT_EQ(b->size(), 2u);
  EXPECT_EQ((*b)[0].model.name, "a");  // the reference, with the same other values, first
  EXPECT_EQ((*b)[0].Param("threads"), "2");
  EXPECT_EQ((*b)[0].Param("use_mmap"), "true");
  EXPECT_EQ((*b)[0].index, 0);
  EXPECT_EQ((*b)[1].model.name, "b");
  EXPECT_EQ((*b)[1].index, 1);
  auto a = Narrow(*cells, "model=a,threads=2", reg, "a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->size(), 2u);  // already there: nothing added
}

}  // namespace
}  // namespace pipette::plan

namespace pipette::plan {
namespace {

TEST(Plan, AParameterLeftToTheRuntimeIsNotInTheKeyAndOnlyCallsItDefault) {
  const ParamRegistry reg = ParamRegistry::Default();
  Experiment ex = WithBatches({"64"}, "0");
  auto unset = Expand(ex, runtime::Registry(), workload::PlanNeeds());
  ASSERT_TRUE(unset.ok()) << unset.error().message;
  EXPECT_FALSE((*unset)[0].HasParam("flash_attn"));
  EXPECT_EQ((*unset)[0].Key().find("flash_attn"), std::string::npos) << (*unset)[0].Key();
  EXPECT_EQ((*unset)[0].ParamOr("flash_attn", "x"), "x");
  ex.params.push_back({"flash_attn", {"on"}});
  auto set = Expand(ex, runtime::Registry(), workload::PlanNeeds());
  ASSERT_TRUE(set.ok());
  EXPECT_NE((*set)[0].Key(), (*unset)[0].Key());  // unset (auto) and on are two cells
  EXPECT_TRUE(Narrow(*unset, "flash_attn=default", reg).ok());
  auto none = Narrow(*unset, "flash_attn=on", reg);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("values: default"), std::string::npos)
      << none.error().message;
}

}  // namespace
}  // namespace pipette::plan

namespace pipette::plan {
namespace {

// llama.cpp and a made-up runtime that has only `poll` of its own (and Pipette's n_ctx, depth).
runtime::RuntimeRegistry LlamaAndOther() {
  runtime::Runtime other{.name = "other", .reach = runtime::WorkerProgram{"w"}};
  other.params = ParamRegistry({{.name = "poll",
                                 .kind = runtime::ParamKind::kInt,
                                 .scope = runtime::ParamScope::kContext,
                                 .min = 0,
                                 .max = 100,
                                 .request_fields = {"cpu_poll"}}});
  return runtime::RuntimeRegistry({runtime::LlamaCpp(), other});
}

TEST(Plan, AParameterMultipliesOnlyTheCellsOfTheRuntimesThatHaveIt) {
  Experiment ex;
  ex.path = "ex.yaml";
  ex.models = {{"a", "/m/a.gguf", "path", 1}};
  ex.runtimes = {{"llama.cpp", "/w/llama", 2}, {"other", "/w/other", 3}};
  // Registry order: poll (other's, order 0), n_ctx (Pipette's), flash_attn (llama.cpp's),
  // depth (Pipette's).
  ex.params = {
      {"poll", {"1", "2", "3"}}, {"n_ctx", {"0"}}, {"flash_attn", {"on", "off"}}, {"depth", {"0"}}};
  ex.tests = {*workload::ParseTestName("pp64")};
  auto cells = Expand(ex, LlamaAndOther(), workload::PlanNeeds());
  ASSERT_TRUE(cells.ok()) << cells.error().message;
  ASSERT_EQ(cells->size(), 2u + 3u);  // not 2 x 3 for each runtime
  for (size_t i = 0; i < 2; ++i) {
    const Cell& c = (*cells)[i];
    EXPECT_EQ(c.runtime.name, "llama.cpp");
    EXPECT_FALSE(c.HasParam("poll"));
    EXPECT_EQ(c.Param("n_ctx"), "256");  // llama.cpp's rule pads it
  }
  EXPECT_EQ((*cells)[0].Key(), "model=a,runtime=llama.cpp,n_ctx=256,flash_attn=on,depth=0");
  EXPECT_EQ((*cells)[1].label, "a llama.cpp flash_attn=off");
  for (size_t i = 2; i < 5; ++i) {
    const Cell& c = (*cells)[i];
    EXPECT_EQ(c.runtime.name, "other");
    EXPECT_FALSE(c.HasParam("flash_attn"));
    EXPECT_EQ(c.Param("n_ctx"), "64");  // no rule of its own: just enough
  }
  EXPECT_EQ((*cells)[2].Key(), "model=a,runtime=other,poll=1,n_ctx=64,depth=0");
  EXPECT_EQ((*cells)[4].label, "a other poll=3");
  EXPECT_EQ((*cells)[4].Param("flash_attn"), "");  // not its parameter: no value, no throw
  EXPECT_EQ((*cells)[4].IntParam("flash_attn"), 0);
}

// A GGUF goes to llama.cpp, a converted ONNX model to onnxruntime: only the pairs that load.
TEST(Plan, ModelsPairOnlyWithTheRuntimesThatLoadTheirFormat) {
  Experiment ex;
  ex.path = "ex.yaml";
  ex.models = {
      {.name = "g", .path = "/m/g.gguf", .source = "path", .line = 1, .format = "gguf"},
      {.name = "o", .path = "/m/o/model.onnx", .source = "path", .line = 1, .format = "onnx"},
      {.name = "o16", .path = "/m/o16/model.onnx", .source = "path", .line = 1, .format = "onnx"}};
  ex.runtimes = {{"llama.cpp", "/w/llama", 2}, {"onnxruntime", "/w/ort", 2}};
  ex.params = {{"threads", {"1", "2"}}, {"n_ctx", {"0"}}, {"depth", {"0"}}};
  ex.tests = {*workload::ParseTestName("pp64")};
  auto cells = Expand(ex, runtime::Registry(), workload::PlanNeeds());
  ASSERT_TRUE(cells.ok()) << cells.error().message;
  std::vector<std::string> keys;
  for (const Cell& c : *cells) keys.push_back(c.Key());
  EXPECT_EQ(keys,
            (std::vector<std::string>{"model=g,runtime=llama.cpp,threads=1,n_ctx=256,depth=0",
                                      "model=g,runtime=llama.cpp,threads=2,n_ctx=256,depth=0",
                                      "model=o,runtime=onnxruntime,threads=1,n_ctx=64,depth=0",
                                      "model=o,runtime=onnxruntime,threads=2,n_ctx=64,depth=0",
                                      "model=o16,runtime=onnxruntime,threads=1,n_ctx=64,depth=0",
                                      "model=o16,runtime=onnxruntime,threads=2,n_ctx=64,depth=0"}));
  EXPECT_EQ((*cells)[2].label, "o onnxruntime threads=1");
  // Narrowed to one runtime, a reference of the other (llama.cpp's g for o) stays, first.
  auto ort =
      Narrow(*cells, "runtime=onnxruntime,threads=2,type_k=f32", runtime::Registry().Params(), "g");
  ASSERT_FALSE(ort.ok());  // no onnxruntime cell sets type_k: the term matches none
  auto narrowed =
      Narrow(*cells, "runtime=onnxruntime,threads=2", runtime::Registry().Params(), "g");
  ASSERT_TRUE(narrowed.ok()) << narrowed.error().message;
  ASSERT_EQ(narrowed->size(), 3u);
  EXPECT_EQ((*narrowed)[0].Key(), "model=g,runtime=llama.cpp,threads=2,n_ctx=256,depth=0");
  EXPECT_EQ((*narrowed)[1].model.name, "o");
}

TEST(Plan, TheCollapseErrorNamesWhatTheRuntimesRuleChanged) {
  auto cells =
      Expand(WithBatches({"512", "1024"}, "0"), runtime::Registry(), workload::PlanNeeds());
  ASSERT_FALSE(cells.ok());
  EXPECT_NE(cells.error().message.find(
                "after runtime 'llama.cpp' resolves n_batch, n_ubatch, n_ctx (a n_batch=1024)"),
            std::string::npos)
      << cells.error().message;
}

}  // namespace
}  // namespace pipette::plan
