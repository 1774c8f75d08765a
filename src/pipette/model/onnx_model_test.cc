#include "pipette/model/onnx_model.h"

#include <gtest/gtest.h>

#include <fstream>

#include "pipette/testing/onnx_folder.h"
#include "pipette/util/temp_dir.h"

namespace pipette::model {
namespace {

using nlohmann::json;

TEST(OnnxModel, ReadsTheFolderOrItsModelOnnx) {
  TempDir tmp("pipette-onnx-model");
  const std::string dir = tmp / "m";
  testing::WriteOnnxFolder(dir, testing::OnnxMeta({{"name", "fp32"}, {"dtype", "float32"}}));
  EXPECT_TRUE(IsOnnxModelPath(dir));
  EXPECT_TRUE(IsOnnxModelPath(dir + "/model.onnx"));
  EXPECT_FALSE(IsOnnxModelPath(tmp / "x.gguf"));
  for (const std::string& path : {dir, dir + "/model.onnx"}) {
    auto m = ReadOnnxModel(path);
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_EQ(m->dir, dir);
    EXPECT_EQ(m->graph_path, dir + "/model.onnx");
    EXPECT_EQ(m->arch, "llama");
    EXPECT_EQ(m->n_ctx_train, 8192);
    EXPECT_EQ(m->n_layer, 30);
    EXPECT_EQ(m->n_embd, 576);
    EXPECT_EQ(m->n_vocab, 49152);
    EXPECT_EQ(m->variant, "fp32");
    EXPECT_EQ(m->general_name, "SmolLM2 135M Instruct");
    EXPECT_EQ(m->files.at("model.onnx"), std::string(64, 'b'));
    EXPECT_EQ(m->files.at("model.onnx.data"), std::string(64, 'c'));
  }
}

// The folder pipette_convert mnn makes: format pipette-mnn/1, its graph model.mnn.
TEST(OnnxModel, ReadsAnMnnFolderAsFormatMnn) {
  TempDir tmp("pipette-onnx-model");
  const std::string dir = tmp / "m";
  json meta = testing::OnnxMeta({{"name", "int8"}, {"dtype", "float32"}});
  meta["format"] = "pipette-mnn/1";
  meta["files"] = {{"model.mnn", std::string(64, 'e')}, {"tokenizer.json", std::string(64, 'd')}};
  testing::WriteOnnxFolder(dir, meta);
  EXPECT_FALSE(ReadOnnxModel(dir).ok());  // no model.mnn yet
  std::ofstream(dir + "/model.mnn") << "not a graph";
  EXPECT_TRUE(IsOnnxModelPath(dir + "/model.mnn"));
  for (const std::string& path : {dir, dir + "/model.mnn"}) {
    auto m = ReadOnnxModel(path);
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_EQ(m->format, "mnn");
    EXPECT_EQ(m->graph_path, dir + "/model.mnn");
    EXPECT_EQ(m->variant, "int8");
  }
  EXPECT_EQ(OnnxQuantLabel(meta["variant"]), "W8A32 (int8 weights)");
}

// Each problem is bad input naming the file and what is wrong with it.
TEST(OnnxModel, MissingOrCorruptMetaIsBadInputNamingTheFile) {
  TempDir tmp("pipette-onnx-model");
  const std::string dir = tmp / "m";
  const std::string meta = dir + "/pipette-model.json";
  auto expect_error = [&](const std::string& contains) {
    auto m = ReadOnnxModel(dir);
    ASSERT_FALSE(m.ok()) << contains;
    EXPECT_EQ(m.error().exit_code, 2);
    EXPECT_NE(m.error().message.find(contains), std::string::npos) << m.error().message;
  };
  expect_error(dir + ": no such ONNX model folder");
  testing::WriteOnnxFolder(dir, testing::OnnxMeta({{"name", "fp32"}}));
  std::filesystem::remove(meta);
  expect_error(meta + ": missing");
  std::ofstream(meta) << "{\"format\": \"pipette-onnx/1\", ";
  expect_error(meta + ": not a JSON object (corrupt?)");
  json other = testing::OnnxMeta({{"name", "fp32"}});
  other["format"] = "pipette-onnx/9";
  std::ofstream(meta) << other.dump();
  expect_error(meta + ": format 'pipette-onnx/9', expected 'pipette-onnx/1' (or 'pipette-mnn/1')");
  json no_layers = testing::OnnxMeta({{"name", "fp32"}});
  no_layers.erase("n_layer");
  std::ofstream(meta) << no_layers.dump();
  expect_error(meta + ": field 'n_layer' is missing or not an integer of at least 1");
  json no_files = testing::OnnxMeta({{"name", "fp32"}});
  no_files["files"].erase("model.onnx");
  std::ofstream(meta) << no_files.dump();
  expect_error(meta + ": field 'files' does not give the SHA-256 of model.onnx");
  std::ofstream(meta) << testing::OnnxMeta({{"name", "fp32"}}).dump();
  std::filesystem::remove(dir + "/model.onnx");
  expect_error(dir + "/model.onnx: missing");
}

TEST(OnnxModel, QuantLabelsNameTheScheme) {
  EXPECT_EQ(OnnxQuantLabel({{"name", "fp32"}}), "fp32");
  EXPECT_EQ(OnnxQuantLabel({{"name", "fp16"}}), "fp16");
  EXPECT_EQ(OnnxQuantLabel({{"name", "int8-dynamic"}}), "W8A8 (int8 dynamic)");
  EXPECT_EQ(OnnxQuantLabel({{"name", "int4-rtn"}, {"block_size", 32}, {"symmetric", true}}),
            "W4A16 (int4 RTN, block 32)");
  EXPECT_EQ(OnnxQuantLabel({{"name", "int4-rtn"}, {"block_size", 64}, {"symmetric", false}}),
            "W4A16 (int4 RTN, block 64, asymmetric)");
  // As the converter writes it: the quantizer's options under "options".
  EXPECT_EQ(OnnxQuantLabel({{"name", "int4-rtn"},
                            {"options", {{"block_size", 32}, {"symmetric", true}, {"bits", 4}}}}),
            "W4A16 (int4 RTN, block 32)");
  EXPECT_EQ(OnnxQuantLabel({{"name", "int4-gptq"}, {"block_size", 128}}),
            "W4A16 (int4 GPTQ, block 128)");
}

}  // namespace
}  // namespace pipette::model
