#include "pipette/config/canonical.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "pipette/config/experiment_testing.h"
#include "pipette/config/parse.h"
#include "pipette/workload/registry.h"  // the quality workloads Pipette ships (ppl)

namespace pipette::config {
namespace {
namespace fs = std::filesystem;

// The hash of a text as parsed (pure: no file is read).
std::string HashOf(const std::string& text) {
  auto ex = ParseExperiment(text, "ex.yaml", runtime::ParamRegistry::Default(),
                            workload::QualitySpecs(), runtime::Registry());
  EXPECT_TRUE(ex.ok()) << ex.error().message;
  return ex.ok() ? ConfigHash(*ex) : "";
}

nlohmann::json CanonicalOf(const std::string& text) {
  auto ex = ParseExperiment(text, "ex.yaml", runtime::ParamRegistry::Default(),
                            workload::QualitySpecs(), runtime::Registry());
  EXPECT_TRUE(ex.ok()) << ex.error().message;
  return ex.ok() ? CanonicalForm(*ex) : nlohmann::json();
}

const std::string kPlain =
    "models: [smollm2-135m-instruct-q4_1]\n"
    "params:\n  threads: [1, 2]\n  flash_attn: on\n"
    "tests: [pp64, tg16]\n"
    "quality:\n  ppl: {n_ctx: 128, chunks: 2}\n";

TEST(Canonical, CommentsKeyOrderAndFormattingDoNotCount) {
  const std::string h = HashOf(kPlain);
  EXPECT_EQ(h.size(), 64u);
  // Comments, other key order (top level and nested), flow and block styles, quoting, a scalar
  // for a one-item list, another spelling of the same value.
  EXPECT_EQ(HashOf("# a sweep\n"
                   "quality:\n  ppl:\n    chunks: 2   # two\n    n_ctx: 128\n"
                   "tests:\n  - pp64\n  - tg16\n"
                   "params: {flash_attn: true, threads: ['1', 2]}\n"
                   "models: smollm2-135m-instruct-q4_1\n"),
            h);
  EXPECT_EQ(HashOf(kPlain + "description: the same sweep\nstore: elsewhere.db\n"), h)
      << "description and store change nothing that is measured";
}

TEST(Canonical, AChangedValueCounts) {
  const std::string h = HashOf(kPlain);
  EXPECT_NE(HashOf(kPlain + "seed: 7\n"), h);
  std::string other = kPlain;
  other.replace(other.find("[1, 2]"), 6, "[1, 3]");
  EXPECT_NE(HashOf(other), h);
  // A list keeps its order: it orders the cells.
  other = kPlain;
  other.replace(other.find("[pp64, tg16]"), 12, "[tg16, pp64]");
  EXPECT_NE(HashOf(other), h);
}

TEST(Canonical, ADefaultWrittenOutCountsAsGiven) {
  const std::string h = HashOf(kPlain);
  EXPECT_NE(HashOf(kPlain + "repetitions: 5\n"), h);
  EXPECT_NE(HashOf(kPlain + "runtime: llama.cpp\n"), h);
  std::string with_n_ctx = kPlain;
  with_n_ctx.replace(with_n_ctx.find("  flash_attn"), 0, "  n_ctx: 0\n");
  EXPECT_NE(HashOf(with_n_ctx), h);
  // Only the keys given are in the form, as written: no defaults, no paths.
  const nlohmann::json c = CanonicalOf(kPlain);
  EXPECT_EQ(c, nlohmann::json::parse(R"({"models": ["smollm2-135m-instruct-q4_1"],
      "params": {"threads": ["1", "2"], "flash_attn": ["on"]}, "tests": ["pp64", "tg16"],
      "quality": {"ppl": {"n_ctx": 128, "chunks": 2}}})"))
      << c.dump();
}

// The same file resolved as two machines would: two cores and eight, the bundled models
// installed in two places. The hash is the same; what the machines derive is stored beside it.
class CanonicalOnMachines : public ExperimentTest {
 protected:
  void SetUp() override {
    ExperimentTest::SetUp();
    opts_.specs = &workload::QualitySpecs();
  }
};

TEST_F(CanonicalOnMachines, TheHashIsTheSameWhateverTheMachine) {
  const std::string text = kPlain + "quantize: {base: smollm2-135m-instruct-q4_1, types: [Q8_0]}\n";
  opts_.machine.logical_cpus = 2;
  auto two = Parse(text);
  ASSERT_TRUE(two.ok()) << two.error().message;
  opts_.machine.logical_cpus = 8;
  fs::create_symlink(opts_.models_dir, dir_ / "models-elsewhere");
  opts_.models_dir = dir_ / "models-elsewhere";
  auto eight = Parse(text);
  ASSERT_TRUE(eight.ok()) << eight.error().message;

  EXPECT_EQ(two->Hash(), eight->Hash());
  EXPECT_EQ(two->Hash(), HashOf(text));  // the hash of what the file writes, nothing more
  EXPECT_EQ(two->Canonical(), eight->Canonical());
  // Beside it: what each machine derived and where it found the files.
  EXPECT_NE(two->Resolved(), eight->Resolved());
  EXPECT_EQ(two->Resolved()["machine"]["quantize_threads"], 2);
  EXPECT_EQ(eight->Resolved()["machine"]["quantize_threads"], 8);
  EXPECT_NE(two->models[0].path, eight->models[0].path);
  EXPECT_FALSE(two->Canonical().contains("machine"));
}

}  // namespace
}  // namespace pipette::config
