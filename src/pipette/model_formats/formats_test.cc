// The formats Pipette ships, on the bundled GGUF and on converted folders as the converter writes
// them (testing/onnx_folder.h).
#include "pipette/model_formats/formats.h"

#include <gtest/gtest.h>

#include <fstream>

#include "pipette/model/onnx_model.h"
#include "pipette/runtime/registry.h"
#include "pipette/testing/onnx_folder.h"
#include "pipette/testing/paths.h"
#include "pipette/util/sha256.h"
#include "pipette/util/temp_dir.h"

namespace pipette::model_formats {
namespace {

const std::string kSmol = "SmolLM2-135M-Instruct.Q4_1.gguf";

TEST(ShippedModelFormats, EveryFormatARuntimeLoadsIsOne) {
  for (const runtime::Runtime& r : runtime::Registry().runtimes()) {
    for (const std::string& f : r.model_formats) {
      EXPECT_NE(Registry().Find(f), nullptr) << r.name << " loads " << f;
    }
  }
  for (const model::ModelFormat& f : Registry().formats()) {
    EXPECT_TRUE(f.recognises && f.read && f.measure) << f.name;
  }
}

TEST(ShippedModelFormats, AGgufIsReadAndMeasuredFromItsHeaderAndKeyedByItsSha256) {
  const std::string path = pipette::testing::SourceDir() + "/models/" + kSmol;
  const model::ModelFormat* f = Registry().Of(path);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->name, "gguf");
  auto read = f->read(path);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->path, path);
  EXPECT_EQ(read->name, "SmolLM2-135M-Instruct.Q4_1");
  EXPECT_EQ(read->quant, "Q4_1");
  EXPECT_EQ(read->n_ctx_train, 8192);
  EXPECT_TRUE(read->provenance.is_null());
  auto facts = Registry().Measure(path);
  ASSERT_TRUE(facts.ok()) << facts.error().message;
  EXPECT_EQ(facts->sha256, *Sha256File(path));
  EXPECT_EQ(facts->info["format"], "gguf");
  EXPECT_EQ(facts->info["architecture"], "llama");
  EXPECT_EQ(facts->info["quant"], "Q4_1");
  EXPECT_TRUE(facts->info["token_reads"].contains("weight_bytes"))
      << facts->info["token_reads"].dump();
}

TEST(ShippedModelFormats, AGgufIsKnownByItsNameOrItsMagic) {
  TempDir tmp("pipette-formats");
  std::ofstream(tmp / "zip.gguf") << "PK\x03\x04";
  std::ofstream(tmp / "magic.bin") << "GGUF\x03";
  std::ofstream(tmp / "zip.bin") << "PK\x03\x04";
  EXPECT_EQ(Registry().Of(tmp / "zip.gguf")->name, "gguf");  // its reader says what is wrong
  EXPECT_NE(Registry()
                .Of(tmp / "zip.gguf")
                ->read(tmp / "zip.gguf")
                .error()
                .message.find("not a GGUF file"),
            std::string::npos);
  EXPECT_EQ(Registry().Of(tmp / "magic.bin")->name, "gguf");
  EXPECT_EQ(Registry().Of(tmp / "zip.bin"), nullptr);
  EXPECT_EQ(Registry().Of(tmp.path().string()), nullptr);  // a folder with no pipette-model.json
  EXPECT_EQ(Registry().Of(tmp / "missing.gguf"), nullptr);
}

TEST(ShippedModelFormats, AConvertedFolderIsOnnxOrMnnByItsMeta) {
  TempDir tmp("pipette-formats");
  const std::string onnx = tmp / "onnx";
  pipette::testing::WriteOnnxFolder(onnx, pipette::testing::OnnxMeta({{"name", "fp32"}}));
  for (const std::string& path : {onnx, onnx + "/model.onnx"}) {
    ASSERT_NE(Registry().Of(path), nullptr) << path;
    EXPECT_EQ(Registry().Of(path)->name, "onnx");
  }
  auto read = Registry().Find("onnx")->read(onnx);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->path, onnx + "/model.onnx");
  EXPECT_EQ(read->name, "onnx");
  EXPECT_EQ(read->n_ctx_train, 8192);
  EXPECT_EQ(read->quant, "fp32");
  EXPECT_EQ(read->provenance.value("format", ""), "pipette-conversion/1");
  auto facts = Registry().Measure(onnx + "/model.onnx");
  ASSERT_TRUE(facts.ok()) << facts.error().message;
  EXPECT_EQ(facts->sha256, *Sha256File(onnx + "/model.onnx"));  // the graph file's
  EXPECT_EQ(facts->info["format"], "onnx");
  EXPECT_TRUE(facts->info["files_sha256"].contains("model.onnx.data"));

  const std::string mnn = tmp / "mnn";
  nlohmann::json meta = pipette::testing::OnnxMeta({{"name", "int8"}});
  meta["format"] = model::kMnnModelFormat;
  meta["files"] = {{"model.mnn", std::string(64, 'e')}};
  pipette::testing::WriteOnnxFolder(mnn, meta);
  std::ofstream(mnn + "/model.mnn") << "not a graph";
  for (const std::string& path : {mnn, mnn + "/model.mnn"}) {
    ASSERT_NE(Registry().Of(path), nullptr) << path;
    EXPECT_EQ(Registry().Of(path)->name, "mnn");
  }
  // The folder's meta decides, for the folder and its graph file alike: an ONNX folder's stray
  // model.mnn is still that folder's ONNX model.
  std::ofstream(onnx + "/model.mnn") << "stray";
  EXPECT_EQ(Registry().Of(onnx + "/model.mnn")->name, "onnx");
  auto mnn_facts = Registry().Measure(mnn + "/model.mnn");
  ASSERT_TRUE(mnn_facts.ok()) << mnn_facts.error().message;
  EXPECT_EQ(mnn_facts->info["format"], "mnn");
  EXPECT_EQ(mnn_facts->info["quant"], "W8A32 (int8 weights)");
  EXPECT_EQ(mnn_facts->sha256, *Sha256File(mnn + "/model.mnn"));
}

}  // namespace
}  // namespace pipette::model_formats
