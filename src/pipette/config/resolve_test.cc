#include "pipette/config/resolve.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "pipette/config/experiment_testing.h"
#include "pipette/config/parse.h"
#include "pipette/config/parse_testing.h"
#include "pipette/runtime/llama.h"
#include "pipette/runtime/registry.h"
#include "pipette/testing/onnx_folder.h"
#include "pipette/workload/registry.h"  // the quality workloads Pipette ships (kld)

namespace pipette::config {
namespace {
namespace fs = std::filesystem;

using ResolveTest = ExperimentTest;

TEST_F(ResolveTest, MinimalFileGetsDefaults) {
  auto written = ParseExperiment("models: [smollm2-135m-instruct-q4_1]\ntests: [pp512, tg128]\n",
                                 File(), registry_, testing::TestsOnly(), runtime::Registry());
  ASSERT_TRUE(written.ok()) << written.error().message;
  auto ex = Resolve(*written, registry_, opts_);
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  EXPECT_EQ(ex->name, "ex");
  ASSERT_EQ(ex->models.size(), 1u);
  EXPECT_EQ(ex->models[0].source, "bundled:smollm2-135m-instruct-q4_1");
  EXPECT_TRUE(fs::path(ex->models[0].path).is_absolute());
  EXPECT_EQ(ex->models[0].quant, "Q4_1");  // from the GGUF header
  EXPECT_GT(ex->models[0].n_ctx_train, 0);
  ASSERT_EQ(ex->runtimes.size(), 1u);
  EXPECT_EQ(ex->runtimes[0].name, "llama.cpp");
  EXPECT_EQ(ex->runtimes[0].worker, dir_ / "pipette-worker-llama");
  EXPECT_EQ(ex->repetitions, 5);
  EXPECT_EQ(ex->warmup, 1);
  EXPECT_EQ(ex->seed, 42u);
  EXPECT_EQ(ex->store, "results/pipette.db");
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

TEST_F(ResolveTest, ValuesDerivedFromTheMachineComeFromItsFacts) {
  const std::string text = "models: [smollm2-135m-instruct-q4_1]\ntests: [pp16]\n";
  opts_.machine.logical_cpus = 2;
  auto two = Parse(text);
  opts_.machine.logical_cpus = 8;
  auto eight = Parse(text);
  ASSERT_TRUE(two.ok() && eight.ok());
  EXPECT_EQ(two->quantize_threads, 2);
  EXPECT_EQ(eight->quantize_threads, 8);
  EXPECT_EQ(two->Resolved()["machine"]["quantize_threads"], 2);
  EXPECT_EQ(eight->Resolved()["machine"]["quantize_threads"], 8);
  opts_.machine.logical_cpus = 0;  // a machine that could not say: one
  EXPECT_EQ(Parse(text)->quantize_threads, 1);
}

TEST_F(ResolveTest, ModelFilesAreCheckedBeforeAnythingRuns) {
  EXPECT_EQ(ErrorOf("models: [missing.gguf]\ntests: [pp16]\n")
                .rfind("ex.yaml:1:10: model file not found: 'missing.gguf'", 0),
            0u);
  std::ofstream(dir_ / "notgguf.gguf") << "PK\x03\x04 this is a zip";
  const std::string err = ErrorOf("models: [notgguf.gguf]\ntests: [pp16]\n");
  EXPECT_EQ(err.rfind("ex.yaml:1:10: ", 0), 0u) << err;
  EXPECT_NE(err.find("not a GGUF file"), std::string::npos) << err;
  // A file of no format Pipette reads: the formats are named.
  std::ofstream(dir_ / "notmodel.bin") << "PK\x03\x04 this is a zip";
  EXPECT_EQ(ErrorOf("models: [./notmodel.bin]\ntests: [pp16]\n"),
            "ex.yaml:1:10: './notmodel.bin' is not a model in a format Pipette reads (a .gguf "
            "file, a converted ONNX folder or a folder converted for MNN)");
  EXPECT_EQ(ErrorOf("models: [smollm2-135m-instruct-q4]\ntests: [pp16]\n"),
            "ex.yaml:1:10: unknown model 'smollm2-135m-instruct-q4' (did you mean "
            "'smollm2-135m-instruct-q4_1'?): give a path to a .gguf file, a converted ONNX "
            "folder, a folder converted for MNN or a bundled name (known: "
            "smollm2-135m-instruct-q4_1 gemma3-270m-q4_k_m)");
  EXPECT_NE(ErrorOf("models: [" + dir_.path().string() + "]\ntests: [pp16]\n")
                .find("is a directory, not a model file"),
            std::string::npos);
  EXPECT_EQ(ErrorOf("models: [smollm2-135m-instruct-q4_1, smollm2-135m-instruct-q4_1]\n"
                    "tests: [pp16]\n"),
            "ex.yaml:1:38: model 'smollm2-135m-instruct-q4_1' is listed twice (first at line 1)");
  EXPECT_EQ(ErrorOf("quantize:\n  base: nosuch\n  types: [F16]\ntests: [pp16]\n").substr(0, 35),
            "ex.yaml:2:9: unknown model 'nosuch'");
  fs::remove(dir_ / "pipette-worker-llama");
  EXPECT_EQ(ErrorOf("models: [smollm2-135m-instruct-q4_1]\ntests: [pp16]\n"),
            "ex.yaml: worker program for 'llama.cpp' not found at " +
                (dir_ / "pipette-worker-llama") + ": build it with `make build`");
}

TEST_F(ResolveTest, AnImatrixCorpusThatCannotFillOneChunkIsRefused) {
  std::ofstream(dir_ / "ten.txt") << "ten bytes.";
  const std::string ten = dir_ / "ten.txt";
  EXPECT_EQ(ErrorOf("quantize:\n  base: smollm2-135m-instruct-q4_1\n"
                    "  imatrix: {types: [Q4_0], corpus: ten.txt, n_ctx: 32}\ntests: [pp16]\n"),
            "ex.yaml:3:36: the imatrix corpus " + ten +
                " has 10 bytes, too few for one chunk of 32 tokens: a token covers at least one "
                "byte, so a chunk needs at least 31 bytes (n_ctx less the BOS token a tokenizer "
                "may add)");
  // The default is checked the same way: here the shipped corpus is missing.
  opts_.datasets_dir = dir_.path().string();
  EXPECT_NE(ErrorOf("quantize:\n  base: smollm2-135m-instruct-q4_1\n"
                    "  imatrix: {types: [Q4_0]}\ntests: [pp16]\n")
                .find("the default corpus is missing"),
            std::string::npos);
}

TEST_F(ResolveTest, QuantizeAddsVariantsOfTheBase) {
  opts_.specs = &workload::QualitySpecs();  // kld names a variant as its reference
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
  EXPECT_EQ(q4i->variant->imatrix->n_ctx, 512);  // the default
  EXPECT_EQ(q4i->variant->imatrix->corpus_sha256.size(), 64u);
  EXPECT_NE(q4->path, q4i->path);  // different definitions, different cache files
}

TEST_F(ResolveTest, AVariantGivenByPathKeepsItsOrigin) {
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

TEST_F(ResolveTest, ARuntimeMayNameItsOwnWorker) {
  auto ex = Parse(
      "models: [smollm2-135m-instruct-q4_1]\n"
      "runtimes: [{name: llama.cpp, worker: pipette-worker-llama}]\ntests: [pp16]\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  EXPECT_EQ(ex->runtimes[0].worker, dir_ / "pipette-worker-llama");
}

// Converted ONNX models (model/onnx_model.h) beside the bundled GGUF, for llama.cpp and
// onnxruntime (placeholder workers).
class OnnxModelsTest : public ExperimentTest {
 protected:
  void SetUp() override {
    ExperimentTest::SetUp();
    std::ofstream(dir_ / "pipette-worker-onnxruntime") << "";
    pipette::testing::WriteOnnxFolder(
        dir_ / "conv", pipette::testing::OnnxMeta(
                           {{"name", "int4-rtn"}, {"block_size", 32}, {"symmetric", true}}));
  }
};

TEST_F(OnnxModelsTest, AConvertedFolderOrItsModelOnnxIsAnOnnxModel) {
  for (const std::string ref : {"conv", "conv/model.onnx"}) {
    auto ex = Parse("models: [{path: " + ref + ", name: c}]\nruntimes: [onnxruntime]\n" +
                    "tests: [pp16]\n");
    ASSERT_TRUE(ex.ok()) << ex.error().message;
    const ModelSpec& m = ex->models.at(0);
    EXPECT_EQ(m.format, "onnx");
    EXPECT_EQ(m.path, dir_ / "conv/model.onnx");
    EXPECT_EQ(m.n_ctx_train, 8192);  // pipette-model.json's, as a GGUF header's
    EXPECT_EQ(m.quant, "W4A16 (int4 RTN, block 32)");
    EXPECT_EQ(m.provenance.value("format", ""), "pipette-conversion/1");
    EXPECT_EQ(m.provenance["base"].value("quant", ""), "Q4_1");
    EXPECT_EQ(m.provenance.value("requantized", false), true);  // int4 from a Q4_1 GGUF
    EXPECT_EQ(m.provenance["model"].value("n_layer", 0), 30);
  }
  auto named = Parse("models: [conv]\nruntimes: [onnxruntime]\ntests: [pp16]\n");
  ASSERT_TRUE(named.ok()) << named.error().message;
  EXPECT_EQ(named->models[0].name, "conv");  // the folder's name
}

TEST_F(OnnxModelsTest, ACorruptOrMissingMetaIsBadInputNamingTheFile) {
  const std::string meta = dir_ / "conv/pipette-model.json";
  std::ofstream(meta) << "{\"format\": ";
  EXPECT_EQ(ErrorOf("models: [conv/model.onnx]\nruntimes: [onnxruntime]\ntests: [pp16]\n"),
            "ex.yaml:1:10: " + meta + ": not a JSON object (corrupt?)");
  fs::remove(meta);
  EXPECT_EQ(ErrorOf("models: [conv/model.onnx]\nruntimes: [onnxruntime]\ntests: [pp16]\n")
                .rfind("ex.yaml:1:10: " + meta + ": missing", 0),
            0u);
}

TEST_F(OnnxModelsTest, EachModelNeedsARuntimeOfTheFileThatLoadsIt) {
  auto both = Parse(
      "models: [smollm2-135m-instruct-q4_1, conv]\nruntimes: [llama.cpp, onnxruntime]\n"
      "tests: [pp16]\n");
  ASSERT_TRUE(both.ok()) << both.error().message;
  EXPECT_EQ(both->models[0].format, "gguf");
  EXPECT_EQ(both->models[1].format, "onnx");
  EXPECT_EQ(ErrorOf("models: [smollm2-135m-instruct-q4_1, conv]\ntests: [pp16]\n"),
            "ex.yaml:1: model 'conv' (format onnx) is loaded by no runtime of this experiment "
            "(llama.cpp): add onnxruntime or openvino to runtimes:");
  EXPECT_EQ(ErrorOf("models: [smollm2-135m-instruct-q4_1]\nruntimes: [onnxruntime]\n"
                    "tests: [pp16]\n"),
            "ex.yaml:1: model 'smollm2-135m-instruct-q4_1' (format gguf) is loaded by no runtime "
            "of this experiment (onnxruntime): add llama.cpp or openai to runtimes:");
  EXPECT_EQ(ErrorOf("models: [conv]\nruntimes: [llama.cpp, onnxruntime]\n"
                    "quantize:\n  base: conv\n  types: [Q4_0]\ntests: [pp16]\n"),
            "ex.yaml:4:9: quantize: makes its variants with llama.cpp, which does not load base "
            "'conv' (a onnx model)");
}

TEST_F(OnnxModelsTest, ConvertAddsOnnxVariantsOfTheGguf) {
  opts_.converted_dir = dir_ / "converted";
  auto ex = Parse(
      "models: [smollm2-135m-instruct-q4_1]\n"
      "runtimes: [llama.cpp, onnxruntime]\n"
      "convert:\n"
      "  base: smollm2-135m-instruct-q4_1\n"
      "  to: onnx\n"
      "  variants: [fp32, int8-dynamic, int4-rtn]\n"
      "  int4: {block_size: 64}\n"
      "tests: [pp16]\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  ASSERT_EQ(ex->models.size(), 4u);
  const ModelSpec& fp32 = ex->models[1];
  EXPECT_EQ(fp32.name, "smollm2-135m-instruct-q4_1:onnx-fp32");
  EXPECT_EQ(fp32.format, "onnx");
  EXPECT_EQ(fp32.quant, "fp32");
  EXPECT_EQ(fp32.n_ctx_train, ex->models[0].n_ctx_train);
  EXPECT_EQ(fp32.source, "converted:bundled:smollm2-135m-instruct-q4_1");
  ASSERT_TRUE(fp32.conversion.has_value());
  EXPECT_EQ(fp32.conversion->base_sha256,
            "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53");
  EXPECT_EQ(fp32.conversion->base_quant, "Q4_1");
  EXPECT_EQ(fs::path(fp32.path).filename(), "model.onnx");
  EXPECT_EQ(fs::path(fp32.path).parent_path().parent_path(), dir_ / "converted");
  EXPECT_EQ(fp32.provenance.value("format", ""), "pipette-conversion/1");
  EXPECT_FALSE(fp32.provenance.value("requantized", true));
  const ModelSpec& int4 = ex->models[3];
  EXPECT_EQ(int4.name, "smollm2-135m-instruct-q4_1:onnx-int4-rtn");
  EXPECT_EQ(int4.quant, "W4A16 (int4 RTN, block 64)");
  EXPECT_EQ(int4.conversion->block_size, 64);
  EXPECT_TRUE(int4.conversion->symmetric);  // the default
  EXPECT_TRUE(int4.provenance.value("requantized", false));
  EXPECT_EQ(ex->models[2].quant, "W8A8 (int8 dynamic)");
  EXPECT_NE(ex->models[2].path, int4.path);
  EXPECT_EQ(ex->Resolved()["models"][3]["conversion"]["variant"]["block_size"], 64);
}

TEST_F(OnnxModelsTest, GptqIsCalibratedOnTheShippedCorpusUnlessTheFileNamesOne) {
  opts_.converted_dir = dir_ / "converted";
  const std::string head =
      "runtimes: [onnxruntime]\nconvert:\n  base: smollm2-135m-instruct-q4_1\n"
      "  variants: [int4-gptq]\n";
  auto shipped = Parse(head + "tests: [pp16]\n");
  ASSERT_TRUE(shipped.ok()) << shipped.error().message;
  const convert::ConversionSpec& g = *shipped->models.at(0).conversion;
  EXPECT_EQ(g.calibration, fs::path(opts_.datasets_dir) / "ppl/devils-dictionary.txt");
  EXPECT_EQ(g.calibration_sha256.size(), 64u);
  EXPECT_EQ(g.calibration_tokens, 128);
  EXPECT_EQ(g.calibration_samples, 8);
  EXPECT_EQ(shipped->models[0].quant, "W4A16 (int4 GPTQ, block 32)");
  std::ofstream(dir_ / "calib.txt") << "some calibration text";
  auto own = Parse(head + "  gptq: {calibration: calib.txt, samples: 2}\ntests: [pp16]\n");
  ASSERT_TRUE(own.ok()) << own.error().message;
  const convert::ConversionSpec& o = *own->models.at(0).conversion;
  EXPECT_EQ(o.calibration, dir_ / "calib.txt");
  EXPECT_EQ(o.calibration_samples, 2);
  EXPECT_NE(o.CacheKey(), g.CacheKey());  // the calibration defines the bytes
  const std::string missing = ErrorOf(head + "  gptq: {calibration: nosuch.txt}\ntests: [pp16]\n");
  EXPECT_EQ(missing.rfind("ex.yaml:5:", 0), 0u) << missing;
  EXPECT_NE(missing.find("gptq calibration file not found: 'nosuch.txt'"), std::string::npos)
      << missing;
}

TEST_F(OnnxModelsTest, ConvertNeedsAGgufBaseAndARuntimeForItsModels) {
  EXPECT_EQ(ErrorOf("models: [conv]\nruntimes: [onnxruntime]\n"
                    "convert: {base: conv, variants: [fp32]}\ntests: [pp16]\n"),
            "ex.yaml:3:17: convert: reads a GGUF, and base 'conv' is a onnx model");
  EXPECT_EQ(ErrorOf("convert: {base: smollm2-135m-instruct-q4_1, variants: [fp16]}\n"
                    "tests: [pp16]\n"),
            "ex.yaml:1: model 'smollm2-135m-instruct-q4_1:onnx-fp16' (format onnx) is loaded by no "
            "runtime of this experiment (llama.cpp): add onnxruntime or openvino to runtimes:");
}

// Beside llama.cpp, a made-up runtime "other" with one parameter of its own, `ubatch`.
class TwoRuntimesTest : public ExperimentTest {
 protected:
  void SetUp() override {
    ExperimentTest::SetUp();
    std::ofstream(dir_ / "pipette-worker-other") << "";
    opts_.runtimes = &runtimes_;
    registry_ = runtimes_.Params();
  }
  static runtime::RuntimeRegistry Runtimes() {
    runtime::Runtime other{.name = "other",
                           .reach = runtime::WorkerProgram{"pipette-worker-other"},
                           .model_formats = {"gguf"}};
    other.params = runtime::ParamRegistry({{.name = "ubatch", .min = 1, .max = 64}});
    return runtime::RuntimeRegistry({runtime::LlamaCpp(), other});
  }
  runtime::RuntimeRegistry runtimes_ = Runtimes();
};

TEST_F(TwoRuntimesTest, AParameterNoRuntimeOfTheExperimentHasIsBadInput) {
  const std::string m = "models: [smollm2-135m-instruct-q4_1]\ntests: [pp16]\n";
  EXPECT_EQ(ErrorOf(m + "runtime: other\nparams:\n  n_ubatch: 8\n"),
            "ex.yaml:5: parameter 'n_ubatch' is llama.cpp's; no runtime of this experiment "
            "(other) has it (did you mean 'ubatch'?)");
  EXPECT_EQ(ErrorOf(m + "params:\n  ubatch: 8\n"),  // the default runtime: llama.cpp
            "ex.yaml:4: parameter 'ubatch' is other's; no runtime of this experiment (llama.cpp) "
            "has it (did you mean 'n_ubatch'?)");  // llama.cpp's, which other tools call ubatch
  // The line is the error's context too, without a column (the message names none).
  auto r = Parse(m + "runtime: other\nparams:\n  n_ubatch: 8\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().context.file, File());
  EXPECT_EQ(r.error().context.line, 5);
  EXPECT_EQ(r.error().context.column, 0);
  EXPECT_EQ(r.error().message,
            Describe(r.error().context,
                     "parameter 'n_ubatch' is llama.cpp's; no runtime of this experiment (other) "
                     "has it (did you mean 'ubatch'?)"));
  // One that only some of the runtimes have is fine: it goes to theirs.
  auto both = Parse(m + "runtimes: [llama.cpp, other]\nparams:\n  ubatch: 8\n  n_ubatch: 8\n");
  ASSERT_TRUE(both.ok()) << both.error().message;
  EXPECT_EQ(both->runtimes.size(), 2u);
  EXPECT_EQ(both->runtimes[1].worker, dir_ / "pipette-worker-other");
}

}  // namespace
}  // namespace pipette::config
