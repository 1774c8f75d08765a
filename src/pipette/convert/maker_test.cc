#include "pipette/convert/maker.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "pipette/testing/onnx_folder.h"
#include "pipette/util/output_files.h"
#include "pipette/util/sha256.h"
#include "pipette/util/temp_dir.h"

namespace pipette::convert {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

// A TEST FAKE of the converter: `version` names `version`; `gguf` and `quantize` write a folder
// at --out as the converter would (pipette-model.json with model.onnx's real SHA-256), `mnn` an
// MNN folder (model.mnn), and reply its JSON line, unless the variant is in `fail`.
class FakeConverter : public CommandRunner {
 public:
  Result<CommandResult> Run(const Command& c) override {
    commands.push_back(c);
    const std::vector<std::string>& a = c.argv;
    auto arg = [&](const std::string& flag) {
      for (size_t i = 0; i + 1 < a.size(); ++i) {
        if (a[i] == flag) return a[i + 1];
      }
      return std::string();
    };
    if (a.at(4) == "version") {
      return CommandResult{
          0, false,
          json{
              {"name", "pipette-convert"}, {"version", version}, {"packages", {{"onnx", "1.23.2"}}}}
                  .dump() +
              "\n",
          ""};
    }
    const bool mnn = a.at(4) == "mnn";
    const bool int8 = std::find(a.begin(), a.end(), "--int8") != a.end();
    const std::string variant = a.at(4) == "gguf" ? (arg("--dtype") == "float16" ? "fp16" : "fp32")
                                : mnn             ? (int8 ? "mnn-int8" : "mnn-fp32")
                                                  : arg("--method");
    if (fail.count(variant)) return CommandResult{1, false, "", "converting: layer 1/30\nboom\n"};
    if (c.on_stderr_line) c.on_stderr_line("converting: layer 30/30, about 0 s left");
    const std::string out = arg("--out");
    json meta = testing::OnnxMeta({{"name", mnn ? variant.substr(4) : variant}});
    testing::WriteOnnxFolder(out, meta);
    meta["files"]["model.onnx"] = *Sha256File(out + "/model.onnx");
    if (mnn) {
      fs::remove(out + "/model.onnx");
      fs::remove(out + "/model.onnx.data");
      std::ofstream(out + "/model.mnn") << "not an MNN model";
      meta["format"] = "pipette-mnn/1";
      meta["files"] = {{"model.mnn", *Sha256File(out + "/model.mnn")}};
      std::ofstream(out + "/pipette-model.json") << meta.dump();
    } else {
      testing::WriteOnnxFolder(out, meta);
    }
    return CommandResult{0, false,
                         json{{"ok", true}, {"seconds", 2.5}, {"meta", meta}}.dump() + "\n", ""};
  }
  std::vector<std::string> Verbs() const {
    std::vector<std::string> v;
    for (const auto& c : commands)
      v.push_back(c.argv.at(4) == "quantize" ? "quantize " + c.argv.at(10)
                  : c.argv.at(4) == "mnn"    ? (c.argv.back() == "--int8" ? "mnn --int8" : "mnn")
                                             : c.argv.at(4));
    return v;
  }

  std::string version = "1";
  std::set<std::string> fail;
  std::vector<Command> commands;
};

class ConvertMakerTest : public ::testing::Test {
 protected:
  ConvertJob Job(const std::string& variant, const std::string& to = "onnx") {
    ConvertJob j;
    j.spec.to = to;
    j.spec.variant = variant;
    j.spec.name = "smol:" + to + "-" + variant;
    j.spec.base_name = "smol";
    j.spec.base_path = "/models/smol.Q4_1.gguf";
    j.spec.base_sha256 = std::string(64, 'a');
    j.spec.base_quant = "Q4_1";
    j.output = (dir_.path() / j.spec.FolderName()).string();
    return j;
  }
  ConverterOptions Options() {
    ConverterOptions o;
    o.python = "/venv/bin/python";
    o.converter_dir = "/src/converters/onnx";
    o.say = [this](const std::string& l) { said_.push_back(l); };
    return o;
  }
  bool NoPartsLeft() const {
    for (const auto& e : fs::directory_iterator(dir_.path())) {
      if (e.path().string().find(".part") != std::string::npos) return false;
    }
    return true;
  }

  TempDir dir_{"pipette-convert-maker"};
  std::vector<std::string> said_;
};

TEST_F(ConvertMakerTest, MakesFp32FirstAndTheQuantizedFromItThenCaches) {
  FakeConverter fake;
  const std::vector<ConvertJob> jobs = {Job("int8-dynamic"), Job("fp32"), Job("int4-rtn")};
  auto results = MakeConversions(jobs, fake, Options());
  ASSERT_EQ(results.size(), 3u);
  for (const auto& r : results) ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(fake.Verbs(), (std::vector<std::string>{"version", "gguf", "quantize int8-dynamic",
                                                    "quantize int4-rtn"}));
  const Command& first = fake.commands.at(1);
  EXPECT_EQ(std::vector<std::string>(first.argv.begin(), first.argv.begin() + 4),
            (std::vector<std::string>{"/venv/bin/python", "-B", "-m", "pipette_convert"}));
  EXPECT_EQ(
      first.env,
      (std::vector<std::pair<std::string, std::string>>{{"PYTHONPATH", "/src/converters/onnx"}}));
  const Command& int4 = fake.commands.at(3);
  EXPECT_EQ(
      std::vector<std::string>(int4.argv.begin() + 4, int4.argv.end()),
      (std::vector<std::string>{"quantize", "--onnx", jobs[1].output, "--out", int4.argv.at(8),
                                "--method", "int4-rtn", "--block-size", "32", "--symmetric"}));
  EXPECT_TRUE(int4.argv.at(8).ends_with(".part"));  // written under a temporary name
  for (const auto& j : jobs) EXPECT_TRUE(fs::exists(fs::path(j.output) / "model.onnx"));
  EXPECT_TRUE(NoPartsLeft());
  const json& p = results[0]->provenance;
  EXPECT_FALSE(results[0]->cached);
  EXPECT_EQ(p.value("name", ""), "smol:onnx-int8-dynamic");
  EXPECT_EQ(p.value("label", ""), "W8A8 (int8 dynamic)");
  EXPECT_TRUE(p.value("requantized", false));
  EXPECT_EQ(p["model"]["variant"].value("name", ""), "int8-dynamic");  // the folder's meta
  EXPECT_EQ(p["made"].value("converter_version", ""), "1");
  EXPECT_EQ(p["made"].value("convert_seconds", 0.0), 2.5);
  EXPECT_EQ(p["made"].value("from", ""), jobs[1].output);
  EXPECT_NE(std::find(said_.begin(), said_.end(), "  converting: layer 30/30, about 0 s left"),
            said_.end());
  EXPECT_EQ(said_.at(0).rfind("[convert 1/3] smol:onnx-fp32 (fp32 from Q4_1 GGUF)", 0), 0u);

  FakeConverter again;
  auto cached = MakeConversions(jobs, again, Options());
  EXPECT_EQ(again.Verbs(), std::vector<std::string>{"version"});  // nothing converted
  for (const auto& r : cached) {
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->cached);
  }
  EXPECT_EQ(cached[2]->provenance.value("label", ""), "W4A16 (int4 RTN, block 32)");

  FakeConverter newer;
  newer.version = "2";
  auto remade = MakeConversions({jobs[1]}, newer, Options());
  ASSERT_TRUE(remade[0].ok());
  EXPECT_FALSE(remade[0]->cached);  // another converter version made the cached one
  EXPECT_EQ(newer.Verbs(), (std::vector<std::string>{"version", "gguf"}));
}

TEST_F(ConvertMakerTest, GptqIsSentItsCalibration) {
  FakeConverter fake;
  ConvertJob gptq = Job("int4-gptq");
  gptq.spec.calibration = "/data/calib.txt";
  gptq.spec.calibration_sha256 = std::string(64, 'e');
  gptq.spec.calibration_tokens = 64;
  gptq.spec.calibration_samples = 4;
  gptq.spec.damp = 0.05;
  auto results = MakeConversions({gptq}, fake, Options());
  ASSERT_TRUE(results[0].ok()) << results[0].error().message;
  const Command& c = fake.commands.back();
  EXPECT_EQ(std::vector<std::string>(c.argv.begin() + 10, c.argv.end()),
            (std::vector<std::string>{"int4-gptq", "--block-size", "32", "--symmetric",
                                      "--calibration", "/data/calib.txt", "--calibration-tokens",
                                      "64", "--calibration-samples", "4", "--damp", "0.05"}));
  const json& p = results[0]->provenance;
  EXPECT_EQ(p["calibration"].value("sha256", ""), std::string(64, 'e'));
  EXPECT_EQ(p["calibration"].value("path", ""), "/data/calib.txt");
  EXPECT_EQ(p.value("label", ""), "W4A16 (int4 GPTQ, block 32)");
}

TEST_F(ConvertMakerTest, AQuantizedVariantAloneHasItsFp32SourceMadeToo) {
  FakeConverter fake;
  auto results = MakeConversions({Job("int4-rtn")}, fake, Options());
  ASSERT_TRUE(results[0].ok()) << results[0].error().message;
  EXPECT_EQ(fake.Verbs(), (std::vector<std::string>{"version", "gguf", "quantize int4-rtn"}));
  EXPECT_TRUE(fs::exists(fs::path(Job("fp32").output) / "model.onnx"));
}

TEST_F(ConvertMakerTest, MnnFoldersAreMadeFromTheOnnxFp32Conversion) {
  FakeConverter fake;
  const std::vector<ConvertJob> jobs = {Job("int8", "mnn"), Job("fp32", "mnn")};
  auto results = MakeConversions(jobs, fake, Options());
  for (const auto& r : results) ASSERT_TRUE(r.ok()) << r.error().message;
  // The ONNX fp32 conversion first (a folder of its own), then each MNN folder from it.
  EXPECT_EQ(fake.Verbs(), (std::vector<std::string>{"version", "gguf", "mnn --int8", "mnn"}));
  const Command& int8 = fake.commands.at(2);
  EXPECT_EQ(std::vector<std::string>(int8.argv.begin() + 4, int8.argv.begin() + 7),
            (std::vector<std::string>{"mnn", "--onnx", Job("fp32").output}));
  EXPECT_TRUE(fs::exists(fs::path(Job("fp32").output) / "model.onnx"));
  EXPECT_NE(jobs[0].output, jobs[1].output);
  EXPECT_NE(Job("fp32", "mnn").output, Job("fp32").output);
  EXPECT_TRUE(fs::path(jobs[1].output).filename().string().find(".mnn-fp32.") != std::string::npos);
  for (const auto& j : jobs) EXPECT_TRUE(fs::exists(fs::path(j.output) / "model.mnn"));
  EXPECT_EQ(results[0]->provenance.value("label", ""), "W8A32 (int8 weights)");
  EXPECT_TRUE(results[0]->provenance.value("requantized", false));  // int8 of a Q4_1's weights
  EXPECT_FALSE(results[1]->provenance.value("requantized", true));  // fp32: the same weights
  EXPECT_EQ(results[1]->provenance.value("to", ""), "mnn");
  EXPECT_EQ(results[1]->provenance.value("note", ""),
            "converted from Q4_1 through its ONNX fp32 conversion");
  EXPECT_NE(std::find_if(said_.begin(), said_.end(),
                         [](const std::string& l) {
                           return l.starts_with(
                               "[convert 2/3] smol:mnn-int8 (W8A32 (int8 weights) from ONNX fp32)");
                         }),
            said_.end());

  FakeConverter again;
  auto cached = MakeConversions(jobs, again, Options());
  EXPECT_EQ(again.Verbs(), std::vector<std::string>{"version"});  // model.mnn found: cached
  for (const auto& r : cached) EXPECT_TRUE(r.ok() && r->cached);
}

TEST_F(ConvertMakerTest, AFailedConversionMakesOnlyItsModelsUnavailable) {
  FakeConverter fake;
  fake.fail = {"fp32"};
  auto results = MakeConversions({Job("int8-dynamic"), Job("fp16"), Job("fp32")}, fake, Options());
  ASSERT_TRUE(results[1].ok()) << results[1].error().message;
  ASSERT_FALSE(results[2].ok());
  EXPECT_NE(results[2].error().message.find("the converter's gguf exited with code 1: "
                                            "converting: layer 1/30\nboom"),
            std::string::npos)
      << results[2].error().message;
  ASSERT_FALSE(results[0].ok());
  EXPECT_NE(results[0].error().message.find(
                "could not make smol:onnx-int8-dynamic: its source smol:onnx-fp32 could not be "
                "made"),
            std::string::npos)
      << results[0].error().message;
  EXPECT_EQ(fake.Verbs(), (std::vector<std::string>{"version", "gguf", "gguf"}));
  EXPECT_TRUE(NoPartsLeft());  // the failed one's temporary folder is gone
  EXPECT_FALSE(fs::exists(Job("fp32").output));
}

TEST_F(ConvertMakerTest, TemporaryFilesOfAKilledMakersProvenanceAreRemoved) {
  // A maker killed while it wrote a provenance file (`<folder>.json`) left its temporary file; the
  // next maker that writes that file removes it once its process is gone, never a live one's.
  env::FakeProcessTable table(env::ProcessIdentity::Of("here", "m", "b", getpid(), 50));
  table.Start(4243, 70);
  const ConvertJob job = Job("fp32");
  const std::string host = ShortHostName();
  auto temp = [&](int pid) {
    return job.output + ".json.tmp" + std::to_string(pid) + (host.empty() ? "" : "." + host);
  };
  std::ofstream(temp(4242)) << "{";
  std::ofstream(temp(4243)) << "{";
  FakeConverter fake;
  ConverterOptions options = Options();
  options.processes = &table;
  auto results = MakeConversions({job}, fake, options);
  ASSERT_TRUE(results[0].ok()) << results[0].error().message;
  EXPECT_TRUE(fs::exists(job.output + ".json"));
  EXPECT_FALSE(fs::exists(temp(4242)));  // its process is gone
  EXPECT_TRUE(fs::exists(temp(4243)));   // its process runs: maybe still writing
}

TEST_F(ConvertMakerTest, AConverterThatCannotSayItsVersionFailsEveryJob) {
  class Broken : public CommandRunner {
    Result<CommandResult> Run(const Command&) override {
      return CommandResult{2, false, "", "No module named pipette_convert\n"};
    }
  } broken;
  auto results = MakeConversions({Job("fp32")}, broken, Options());
  ASSERT_FALSE(results[0].ok());
  EXPECT_NE(results[0].error().message.find("No module named pipette_convert"), std::string::npos);
}

}  // namespace
}  // namespace pipette::convert
