#include "pipette/config/experiment.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace pipette::config {
namespace {
namespace fs = std::filesystem;

// Parsing checks the bundled model file (real, fetched by scripts/setup.sh) and that a worker
// program exists (here an empty placeholder file: nothing is run).
class ExperimentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    opts_.models_dir = std::string(PIPETTE_SOURCE_DIR) + "/models";
    ASSERT_TRUE(fs::exists(opts_.models_dir + "/SmolLM2-135M-Instruct.Q4_1.gguf"))
        << "run scripts/setup.sh (fetches the bundled model)";
    dir_ = fs::temp_directory_path() / ("pipette-exp-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "pipette-worker-llama") << "";
    opts_.workers_dir = dir_.string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  Result<Experiment> Parse(const std::string& text) {
    return ParseExperiment(text, (dir_ / "ex.yaml").string(), registry_, opts_);
  }
  std::string ErrorOf(const std::string& text) {
    auto r = Parse(text);
    EXPECT_FALSE(r.ok());
    if (r.ok()) return "";
    EXPECT_EQ(r.error().exit_code, 2);
    // Strip the temp dir for readable expectations.
    std::string m = r.error().message;
    const std::string prefix = (dir_ / "").string();
    if (m.rfind(prefix, 0) == 0) m = m.substr(prefix.size());
    return m;
  }

  ParamRegistry registry_ = ParamRegistry::Default();
  LoadOptions opts_;
  fs::path dir_;
};

TEST_F(ExperimentTest, MinimalFileGetsDefaults) {
  auto ex = Parse("models: [smollm2-135m-instruct-q4_1]\ntests: [pp512, tg128, ttft@64]\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  EXPECT_EQ(ex->name, "ex");
  ASSERT_EQ(ex->models.size(), 1u);
  EXPECT_EQ(ex->models[0].source, "bundled:smollm2-135m-instruct-q4_1");
  EXPECT_TRUE(fs::path(ex->models[0].path).is_absolute());
  ASSERT_EQ(ex->runtimes.size(), 1u);
  EXPECT_EQ(ex->runtimes[0].name, "llama.cpp");
  EXPECT_EQ(ex->repetitions, 5);
  EXPECT_EQ(ex->warmup, 1);
  ASSERT_EQ(ex->tests.size(), 3u);
  EXPECT_EQ(ex->tests[0].kind, TestKind::kPP);
  EXPECT_EQ(ex->tests[1].n, 128);
  EXPECT_EQ(ex->tests[2].name, "ttft@64");
  EXPECT_EQ(ex->tests[2].line, 2);
  // Only parameters with a Pipette default are present (n_ctx 0 = auto, depth 0): the others
  // are left to the runtime, not sent.
  ASSERT_EQ(ex->params.size(), 2u);
  EXPECT_EQ(ex->params[0].first, "n_ctx");
  EXPECT_EQ(ex->params[0].second, std::vector<std::string>{"0"});
  EXPECT_EQ(ex->params[1].first, "depth");
  for (const auto& d : registry_.defs()) {
    if (d.name != "n_ctx" && d.name != "depth") {
      EXPECT_FALSE(d.HasDefault()) << d.name;
    }
  }
}

TEST_F(ExperimentTest, ListsSweepAndScalarsAreOneValue) {
  auto ex = Parse(R"(name: sweep
models: smollm2-135m-instruct-q4_1
runtimes: [llama.cpp]
params:
  threads: [1, 2, 2]
  n_batch: 64
  flash_attn: [on, false, auto, true]
  type_k: q8_0
tests: pp64
repetitions: 3
warmup: 0
seed: 7
)");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  auto values = [&](const std::string& n) {
    for (const auto& [k, v] : ex->params) {
      if (k == n) return v;
    }
    return std::vector<std::string>{};
  };
  EXPECT_EQ(values("threads"), (std::vector<std::string>{"1", "2"}));  // duplicates dropped
  EXPECT_EQ(values("n_batch"), (std::vector<std::string>{"64"}));
  // true/false are on/off, and the canonical forms are what is kept (the second on dropped).
  EXPECT_EQ(values("flash_attn"), (std::vector<std::string>{"on", "off", "auto"}));
  EXPECT_EQ(values("type_k"), (std::vector<std::string>{"q8_0"}));
  EXPECT_EQ(ex->repetitions, 3);
  EXPECT_EQ(ex->warmup, 0);
  EXPECT_EQ(ex->seed, 7u);
}

TEST_F(ExperimentTest, HashIgnoresCommentsButNotValues) {
  auto a = Parse("models: [smollm2-135m-instruct-q4_1]\ntests: [pp64]\n");
  auto b = Parse("# a comment\nmodels: [smollm2-135m-instruct-q4_1]  # here too\ntests: [pp64]\n");
  auto c = Parse("models: [smollm2-135m-instruct-q4_1]\ntests: [pp128]\n");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->Hash(), b->Hash());
  EXPECT_NE(a->Hash(), c->Hash());
  EXPECT_EQ(a->Hash().size(), 64u);
}

TEST_F(ExperimentTest, ErrorsNameLineColumnAndSuggest) {
  const std::string m = "models: [smollm2-135m-instruct-q4_1]\n";
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nwarmpu: 2\n"),
            "ex.yaml:3:1: unknown key 'warmpu' (did you mean 'warmup'?)");
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nparams:\n  n_bacth: 8\n"),
            "ex.yaml:4:3: unknown parameter 'n_bacth' (did you mean 'n_batch'?)");
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nthreads: 2\n"),
            "ex.yaml:3:1: 'threads' is a runtime parameter: put it under 'params:'");
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nparams:\n  threads: 0\n"),
            "ex.yaml:4:12: threads must be between 1 and 1024, got 0");
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nparams:\n  type_k: q9\n"),
            "ex.yaml:4:11: type_k must be one of f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, "
            "got 'q9'");
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nparams:\n  flash_attn: maybe\n"),
            "ex.yaml:4:15: flash_attn must be one of auto, on, off (true = on, false = off, "
            "enabled = on, disabled = off), got 'maybe'");
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nrepetitions: many\n"),
            "ex.yaml:3:14: repetitions must be an integer, got 'many'");
  EXPECT_EQ(ErrorOf(m + "tests: [pp0]\n"),
            "ex.yaml:2:9: test 'pp0' needs a positive token count, e.g. pp512, tg128, ttft@256");
  EXPECT_EQ(ErrorOf(m + "tests: [tg100000000]\n"),
            "ex.yaml:2:9: test 'tg100000000' asks for 100000000 tokens: a test takes at most "
            "16777216 (2^24)");
  EXPECT_EQ(ErrorOf(m + "tests: [tgx]\n"),
            "ex.yaml:2:9: test 'tgx' needs a whole number of tokens after 'tg', e.g. pp512, tg128, "
            "ttft@256");
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nruntime: llama.cp\n"),
            "ex.yaml:3:10: unknown runtime 'llama.cp' (did you mean 'llama.cpp'?) (known: "
            "llama.cpp)");
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\ndevice: phone\n"),
            "ex.yaml:3:9: device 'phone' is not supported yet: only 'local'");
  EXPECT_EQ(ErrorOf("models: [smollm2-135m-instruct-q4]\ntests: [pp16]\n"),
            "ex.yaml:1:10: unknown model 'smollm2-135m-instruct-q4' (did you mean "
            "'smollm2-135m-instruct-q4_1'?): give a path to a .gguf file or a bundled name "
            "(known: smollm2-135m-instruct-q4_1 gemma3-270m-q4_k_m)");
  EXPECT_EQ(ErrorOf("tests: [pp16]\n"),
            "ex.yaml: missing 'models:' (a list of bundled names or .gguf paths) or 'quantize:'");
  EXPECT_EQ(ErrorOf(m),
            "ex.yaml: missing 'tests:' (for example [pp512, tg128, ttft@256]) or 'quality:'");
  EXPECT_EQ(ErrorOf("\n  \n"),
            "ex.yaml: the experiment file is empty (it needs at least models: and tests:)");
  EXPECT_NE(ErrorOf("models: [" + dir_.string() + "]\ntests: [pp16]\n")
                .find("is a directory, not a model file"),
            std::string::npos);
  EXPECT_EQ(ErrorOf("- just\n- a list\n"),
            "ex.yaml: an experiment file must be a YAML mapping (key: value)");
  EXPECT_NE(ErrorOf(m + "tests: [pp16\n").find("ex.yaml:3:1: malformed YAML"), std::string::npos);
}

TEST_F(ExperimentTest, ParametersByTheirLlamaCppNamesAreSuggested) {
  const std::string m = "models: [smollm2-135m-instruct-q4_1]\ntests: [pp16]\n";
  EXPECT_EQ(ErrorOf(m + "params: {n_thread: 2}\n"),
            "ex.yaml:3:10: unknown parameter 'n_thread' (did you mean 'threads'?)");
  EXPECT_EQ(ErrorOf(m + "params:\n  ctx-size: 512\n"),
            "ex.yaml:4:3: unknown parameter 'ctx-size' (did you mean 'n_ctx'?)");
  EXPECT_EQ(ErrorOf(m + "params:\n  fa: on\n"),
            "ex.yaml:4:3: unknown parameter 'fa' (did you mean 'flash_attn'?)");
  EXPECT_EQ(ErrorOf(m + "params:\n  zz: 1\n"), "ex.yaml:4:3: unknown parameter 'zz'");
  // At the top level too: it is a parameter, by another name.
  EXPECT_EQ(ErrorOf(m + "n_threads: 2\n"),
            "ex.yaml:3:1: unknown key 'n_threads': the runtime parameter is 'threads', under "
            "'params:'");
}

TEST_F(ExperimentTest, ATabInTheIndentationIsNamed) {
  const std::string m = "models: [smollm2-135m-instruct-q4_1]\ntests: [pp16]\n";
  EXPECT_EQ(ErrorOf(m + "params:\n\tthreads: 2\n"),
            "ex.yaml:4:1: a tab in the indentation: YAML indents with spaces");
  EXPECT_EQ(ErrorOf(m + "params:\n  threads: 2\n  \tn_batch: 8\n"),
            "ex.yaml:5:3: a tab in the indentation: YAML indents with spaces");
  EXPECT_EQ(ErrorOf("models:\n\t- smollm2-135m-instruct-q4_1\ntests: [pp16]\n"),
            "ex.yaml:2:1: a tab in the indentation: YAML indents with spaces");
  // A tab YAML accepts (inside a block of text) is no error; other mistakes keep their words.
  EXPECT_TRUE(Parse(m + "description: |\n  one\n  \ttwo\n").ok());
  EXPECT_NE(ErrorOf(m + "params: {threads: 2\n").find("malformed YAML"), std::string::npos);
}

TEST_F(ExperimentTest, CorporaThatCannotFillOneChunkAreRefused) {
  opts_.datasets_dir = std::string(PIPETTE_SOURCE_DIR) + "/datasets";
  const std::string m = "models: [smollm2-135m-instruct-q4_1]\n";
  std::ofstream(dir_ / "empty.txt") << "";
  std::ofstream(dir_ / "ten.txt") << "ten bytes.";
  const std::string empty = (dir_ / "empty.txt").string(), ten = (dir_ / "ten.txt").string();
  EXPECT_EQ(ErrorOf(m + "quality:\n  ppl: {corpus: empty.txt}\n"),
            "ex.yaml:3:17: the ppl corpus " + empty + " is empty");
  EXPECT_EQ(ErrorOf(m + "quality:\n  kld: {reference: smollm2-135m-instruct-q4_1, corpus: " +
                    "empty.txt}\n"),
            "ex.yaml:3:56: the kld corpus " + empty + " is empty");
  // Ten bytes are at most ten tokens, plus a BOS: enough for n_ctx 11, never for 12.
  EXPECT_TRUE(Parse(m + "quality:\n  ppl: {corpus: ten.txt, n_ctx: 11}\n").ok());
  EXPECT_EQ(ErrorOf(m + "quality:\n  ppl: {corpus: ten.txt, n_ctx: 12}\n"),
            "ex.yaml:3:17: the ppl corpus " + ten +
                " has 10 bytes, too few for one chunk of 12 tokens: a token covers at least one "
                "byte, so a chunk needs at least 11 bytes (n_ctx less the BOS token a tokenizer "
                "may add)");
  EXPECT_EQ(ErrorOf(m + "quality:\n  kld: {reference: smollm2-135m-instruct-q4_1, corpus: " +
                    "ten.txt}\n")
                .substr(0, 30 + ten.size()),
            "ex.yaml:3:56: the kld corpus " + ten + " ");
  EXPECT_EQ(ErrorOf("quantize:\n  base: smollm2-135m-instruct-q4_1\n"
                    "  imatrix: {types: [Q4_0], corpus: ten.txt, n_ctx: 32}\ntests: [pp16]\n"),
            "ex.yaml:3:36: the imatrix corpus " + ten +
                " has 10 bytes, too few for one chunk of 32 tokens: a token covers at least one "
                "byte, so a chunk needs at least 31 bytes (n_ctx less the BOS token a tokenizer "
                "may add)");
  // The defaults are checked the same way: here the shipped corpus is missing.
  opts_.datasets_dir = dir_.string();
  EXPECT_NE(ErrorOf(m + "quality:\n  kld: {reference: smollm2-135m-instruct-q4_1}\n")
                .find("the default corpus is missing at " + dir_.string()),
            std::string::npos);
  EXPECT_NE(ErrorOf(m + "quality:\n  ppl:\n").find("the default corpus is missing"),
            std::string::npos);
  EXPECT_NE(ErrorOf("quantize:\n  base: smollm2-135m-instruct-q4_1\n"
                    "  imatrix: {types: [Q4_0]}\ntests: [pp16]\n")
                .find("the default corpus is missing"),
            std::string::npos);
}

TEST_F(ExperimentTest, DatasetsWithoutItemsAreRefused) {
  opts_.datasets_dir = std::string(PIPETTE_SOURCE_DIR) + "/datasets";
  std::ofstream(dir_ / "none.jsonl") << "\n\n";
  const std::string m = "models: [smollm2-135m-instruct-q4_1]\n";
  EXPECT_EQ(ErrorOf(m + "quality:\n  mc: {dataset: none.jsonl}\n"),
            "none.jsonl: no items (the file is empty or has only blank lines)");
  EXPECT_EQ(ErrorOf(m + "quality:\n  gen: {dataset: none.jsonl}\n"),
            "none.jsonl: no items (the file is empty or has only blank lines)");
}

TEST_F(ExperimentTest, GenTemplateOptionsAreJsonScalarsAndPartOfTheCanonicalForm) {
  opts_.datasets_dir = std::string(PIPETTE_SOURCE_DIR) + "/datasets";
  const std::string m = "models: [smollm2-135m-instruct-q4_1]\nquality:\n  gen:\n";
  auto ex = Parse(m +
                  "    template_options: {enable_thinking: false, n: 3, x: 0.5, s: hello,"
                  " q: 'true', z: ~, t: True}\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  const nlohmann::json want = {{"enable_thinking", false},
                               {"n", 3},
                               {"x", 0.5},
                               {"s", "hello"},
                               {"q", "true"},
                               {"z", nullptr},
                               {"t", true}};
  EXPECT_EQ(ex->gen->template_options, want);
  EXPECT_EQ(ex->Canonical()["quality"]["gen"]["template_options"], want);
  // Without options the canonical form (and so the hash) is what it was before they existed.
  auto plain = Parse(m + "    limit: 2\n");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_TRUE(plain->gen->template_options.empty());
  EXPECT_FALSE(plain->Canonical()["quality"]["gen"].contains("template_options"));
  auto other = Parse(m + "    limit: 2\n    template_options: {enable_thinking: true}\n");
  ASSERT_TRUE(other.ok()) << other.error().message;
  EXPECT_NE(plain->Hash(), other->Hash());

  EXPECT_EQ(ErrorOf(m + "    template_option: {enable_thinking: false}\n"),
            "ex.yaml:4:5: unknown key 'template_option' in gen (did you mean "
            "'template_options'?)");
  EXPECT_EQ(ErrorOf(m + "    template_options: [enable_thinking]\n"),
            "ex.yaml:4:23: gen.template_options takes a mapping of option names to values "
            "(e.g. {enable_thinking: false})");
  EXPECT_EQ(ErrorOf(m + "    template_options: {a: [1, 2]}\n"),
            "ex.yaml:4:27: gen.template_options.a must be a single value (string, number, "
            "boolean or null)");
  EXPECT_EQ(ErrorOf(m + "    template_options: {a: 1, a: 2}\n"),
            "ex.yaml:4:30: duplicate key 'a' in gen.template_options (first at line 4)");
  // mc has no template: the key is unknown there.
  EXPECT_EQ(ErrorOf("models: [smollm2-135m-instruct-q4_1]\nquality:\n  mc:\n"
                    "    template_options: {a: 1}\n"),
            "ex.yaml:4:5: unknown key 'template_options' in mc");
}

TEST_F(ExperimentTest, NothingMaySayAThingTwice) {
  const std::string m = "models: [smollm2-135m-instruct-q4_1]\n";
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nrepetitions: 2\nrepetitions: 3\n"),
            "ex.yaml:4:1: duplicate key 'repetitions' (first at line 3)");
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nparams:\n  threads: 1\n  threads: 2\n"),
            "ex.yaml:5:3: duplicate key 'threads' in params (first at line 4)");
  EXPECT_EQ(ErrorOf(m + "tests: [pp64, tg16, pp064]\n"),
            "ex.yaml:2:21: test pp64 is listed twice (first at line 2)");
  EXPECT_EQ(ErrorOf("models: [smollm2-135m-instruct-q4_1, smollm2-135m-instruct-q4_1]\n"
                    "tests: [pp16]\n"),
            "ex.yaml:1:38: model 'smollm2-135m-instruct-q4_1' is listed twice (first at line 1)");
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nruntime: llama.cpp\nruntimes: [llama.cpp]\n"),
            "ex.yaml:4:1: give either 'runtime:' or 'runtimes:', not both");
}

TEST_F(ExperimentTest, ModelFilesAreCheckedBeforeAnythingRuns) {
  EXPECT_EQ(ErrorOf("models: [missing.gguf]\ntests: [pp16]\n")
                .rfind("ex.yaml:1:10: model file not found: 'missing.gguf'", 0),
            0u);
  std::ofstream(dir_ / "notgguf.gguf") << "PK\x03\x04 this is a zip";
  const std::string err = ErrorOf("models: [notgguf.gguf]\ntests: [pp16]\n");
  EXPECT_EQ(err.rfind("ex.yaml:1:10: ", 0), 0u) << err;
  EXPECT_NE(err.find("not a GGUF file"), std::string::npos) << err;
}

TEST_F(ExperimentTest, QuantizeAddsVariantsOfTheBase) {
  opts_.datasets_dir = std::string(PIPETTE_SOURCE_DIR) + "/datasets";
  auto ex = Parse(
      "models: [smollm2-135m-instruct-q4_1]\n"
      "quantize:\n"
      "  base: smollm2-135m-instruct-q4_1\n"
      "  types: [Q8_0, Q4_0]\n"
      "  imatrix: {corpus: " +
      opts_.datasets_dir +
      "/ppl/devils-dictionary.txt, types: [Q4_0], chunks: 2}\n"
      "tests: [pp16]\n"
      "quality:\n"
      "  kld: {reference: 'smollm2-135m-instruct-q4_1:Q8_0'}\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  ASSERT_EQ(ex->models.size(), 4u);
  // The kld reference runs first.
  EXPECT_EQ(ex->models[0].name, "smollm2-135m-instruct-q4_1:Q8_0");
  const ModelSpec* q4 = nullptr;
  const ModelSpec* q4i = nullptr;
  for (const auto& m : ex->models) {
    if (m.name == "smollm2-135m-instruct-q4_1:Q4_0") q4 = &m;
    if (m.name == "smollm2-135m-instruct-q4_1:Q4_0+imatrix") q4i = &m;
  }
  ASSERT_TRUE(q4 && q4i);
  EXPECT_EQ(q4->quant, "Q4_0");
  ASSERT_TRUE(q4->variant.has_value());
  EXPECT_EQ(q4->variant->base_quant, "Q4_1");
  EXPECT_TRUE(q4->variant->Requantized());
  EXPECT_EQ(q4->variant->base_sha256,
            "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53");
  EXPECT_EQ(fs::path(q4->path).parent_path(), fs::path(opts_.models_dir) / "variants");
  EXPECT_TRUE(q4->provenance["requantized"].get<bool>());
  EXPECT_GT(q4->n_ctx_train, 0);
  ASSERT_TRUE(q4i->variant->imatrix.has_value());
  EXPECT_EQ(q4i->variant->imatrix->chunks, 2);
  EXPECT_NE(q4->path, q4i->path);  // different definitions, different cache files
}

TEST_F(ExperimentTest, KeysAfterANodeValuedKeyAreStillRead) {
  // A path key first, then others: reading it must not disturb the mapping being read.
  opts_.datasets_dir = std::string(PIPETTE_SOURCE_DIR) + "/datasets";
  const std::string corpus = opts_.datasets_dir + "/ppl/devils-dictionary.txt";
  auto ex = Parse(
      "models: [smollm2-135m-instruct-q4_1]\n"
      "runtimes: [{name: llama.cpp, worker: pipette-worker-llama}]\n"
      "quality:\n"
      "  ppl: {corpus: " +
      corpus +
      ", n_ctx: 256, chunks: 2}\n"
      "  mc: {dataset: " +
      opts_.datasets_dir +
      "/mc/pipette-mc-v1.jsonl, limit: 3}\n"
      "  kld: {corpus: " +
      corpus + ", reference: smollm2-135m-instruct-q4_1, chunks: 1}\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  EXPECT_EQ(ex->ppl->n_ctx, 256);
  EXPECT_EQ(ex->ppl->chunks, 2);
  EXPECT_EQ(ex->mc->limit, 3);
  EXPECT_EQ(ex->kld->chunks, 1);
}

TEST_F(ExperimentTest, KldComparesTheFullVocabularyUnlessTopKIsAskedFor) {
  opts_.datasets_dir = std::string(PIPETTE_SOURCE_DIR) + "/datasets";
  const std::string m = "models: [smollm2-135m-instruct-q4_1]\nquality:\n  kld: ";
  auto full = Parse(m + "{reference: smollm2-135m-instruct-q4_1}\n");
  ASSERT_TRUE(full.ok()) << full.error().message;
  EXPECT_EQ(full->kld->mode, KldMode::kFull);
  EXPECT_EQ(full->Canonical()["quality"]["kld"]["mode"], "full");
  EXPECT_FALSE(full->Canonical()["quality"]["kld"].contains("top_k"));
  auto topk = Parse(m + "{reference: smollm2-135m-instruct-q4_1, mode: topk, top_k: 64}\n");
  ASSERT_TRUE(topk.ok()) << topk.error().message;
  EXPECT_EQ(topk->kld->mode, KldMode::kTopK);
  EXPECT_EQ(topk->kld->top_k, 64);
  // top_k alone asks for the compact mode; with mode full it would mean nothing.
  auto implied = Parse(m + "{reference: smollm2-135m-instruct-q4_1, top_k: 16}\n");
  ASSERT_TRUE(implied.ok());
  EXPECT_EQ(implied->kld->mode, KldMode::kTopK);
  EXPECT_EQ(ErrorOf(m + "{reference: smollm2-135m-instruct-q4_1, mode: full, top_k: 16}\n"),
            "ex.yaml:3:67: kld.top_k applies to mode: topk only (mode: full compares every id of "
            "the vocabulary)");
  EXPECT_EQ(ErrorOf(m + "{reference: smollm2-135m-instruct-q4_1, mode: top-k}\n"),
            "ex.yaml:3:54: kld.mode must be full or topk, not 'top-k' (did you mean 'topk'?)");
  EXPECT_EQ(ErrorOf(m + "{reference: smollm2-135m-instruct-q4_1, mdoe: full}\n"),
            "ex.yaml:3:48: unknown key 'mdoe' in kld (did you mean 'mode'?)");
}

TEST_F(ExperimentTest, AVariantGivenByPathKeepsItsOrigin) {
  // An "F16" Pipette made from the Q4_1 file: its sidecar says where its weights came from.
  const fs::path model = fs::path(opts_.models_dir) / "SmolLM2-135M-Instruct.Q4_1.gguf";
  fs::create_symlink(model, dir_ / "up.gguf");
  nlohmann::json side = {{"format", "pipette-variant/1"},
                         {"label", "F16"},
                         {"requantized", true},
                         {"base", {{"name", "smol"}, {"quant", "Q4_1"}}},
                         {"file", {{"size", fs::file_size(model)}}}};
  std::ofstream(dir_ / "up.gguf.json") << side.dump();
  auto ex = Parse("models: [up.gguf]\nquantize: {base: up.gguf, types: [Q8_0]}\ntests: [pp16]\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  ASSERT_EQ(ex->models.size(), 2u);
  EXPECT_EQ(ex->models[0].provenance["label"], "F16");  // results on it carry the sidecar
  ASSERT_TRUE(ex->models[1].variant.has_value());
  EXPECT_EQ(ex->models[1].variant->base_origin, "Q4_1");
  EXPECT_TRUE(ex->models[1].variant->Requantized());
  // A sidecar for another file (a different size) is not believed.
  side["file"]["size"] = 1;
  std::ofstream(dir_ / "up.gguf.json") << side.dump();
  auto other = Parse("models: [up.gguf]\ntests: [pp16]\n");
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE(other->models[0].provenance.is_null());
}

TEST_F(ExperimentTest, QuantizeErrorsNameTheLine) {
  EXPECT_EQ(ErrorOf("quantize: {base: smollm2-135m-instruct-q4_1, types: [Q4_K]}\n"
                    "tests: [pp16]\n"),
            "ex.yaml:1:54: unknown quantization type 'Q4_K' (did you mean 'Q6_K'?) (known: F32 "
            "F16 BF16 Q8_0 Q6_K Q5_K_M Q5_K_S Q5_1 Q5_0 Q4_K_M Q4_K_S Q4_1 Q4_0 IQ4_NL IQ4_XS "
            "Q3_K_L Q3_K_M Q3_K_S Q2_K)");
  EXPECT_EQ(ErrorOf("quantize:\n  base: smollm2-135m-instruct-q4_1\n  typs: [Q8_0]\n"
                    "tests: [pp16]\n"),
            "ex.yaml:3:3: unknown key 'typs' in quantize (did you mean 'types'?)");
  EXPECT_EQ(ErrorOf("quantize:\n  base: smollm2-135m-instruct-q4_1\n  types: [F16]\n"
                    "  overrides: {'blk\\.(0': q4_0}\n  label: x\n"
                    "tests: [pp16]\n")
                .substr(0, 57),
            "ex.yaml:4:15: 'blk\\.(0' is not a valid regular expression");
  EXPECT_EQ(ErrorOf("quantize:\n  base: smollm2-135m-instruct-q4_1\n  types: [F16]\n"
                    "  overrides: {'blk\\.0\\..*': q4_k_m}\n  label: x\n"
                    "tests: [pp16]\n")
                .substr(0, 42),
            "ex.yaml:4:29: unknown tensor type 'q4_k_m'");
  EXPECT_EQ(ErrorOf("quantize:\n  base: smollm2-135m-instruct-q4_1\n  types: [F16, Q8_0]\n"
                    "  overrides: {'blk\\.0\\..*': q4_0}\n"
                    "tests: [pp16]\n"),
            "ex.yaml:4:14: a variant with overrides needs 'label:' (its name in reports)");
  EXPECT_EQ(ErrorOf("quantize:\n  base: smollm2-135m-instruct-q4_1\n"
                    "  imatrix: {types: [Q8_0]}\ntests: [pp16]\n"),
            "ex.yaml:3:20: an importance matrix changes nothing for Q8_0: list lower-bit types "
            "(Q4_0, Q4_K_M, ...)");
  EXPECT_EQ(ErrorOf("quantize:\n  base: smollm2-135m-instruct-q4_1\n  types: [F16]\n"
                    "  overrides: {'^blk\\.0\\.': q4_0}\n  label: x\ntests: [pp16]\n")
                .substr(0, 62),
            "ex.yaml:4:14: llama.cpp ignores overrides when the type is F16");
  EXPECT_EQ(ErrorOf("quantize:\n  base: nosuch\n  types: [F16]\ntests: [pp16]\n").substr(0, 35),
            "ex.yaml:2:9: unknown model 'nosuch'");
}

TEST(TestNames, ParseAndCanonicalize) {
  auto t = ParseTestName("tg128");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->kind, TestKind::kTG);
  EXPECT_EQ(t->n, 128);
  EXPECT_FALSE(ParseTestName("tg").ok());
  EXPECT_FALSE(ParseTestName("tg12x").ok());
  EXPECT_FALSE(ParseTestName("ttft@-3").ok());
  EXPECT_EQ(ParseTestName("ttft@256")->name, "ttft@256");
  // The limit, and past it (also past what an int holds): "too large", not "not a number".
  EXPECT_EQ(ParseTestName("tg16777216")->n, 16777216);
  EXPECT_EQ(ParseTestName("tg16777217").error().message,
            "test 'tg16777217' asks for 16777217 tokens: a test takes at most 16777216 (2^24)");
  EXPECT_NE(ParseTestName("pp99999999999999999999").error().message.find("at most 16777216"),
            std::string::npos);
  EXPECT_NE(ParseTestName("tg").error().message.find("needs a whole number of tokens after 'tg'"),
            std::string::npos);
  EXPECT_NE(ParseTestName("ttft@-3").error().message.find("positive"), std::string::npos);
}

}  // namespace
}  // namespace pipette::config
