#include "pipette/convert/provenance.h"

#include <gtest/gtest.h>

#include "pipette/quant/variant.h"
#include "pipette/testing/onnx_folder.h"

namespace pipette::convert {
namespace {

model::OnnxModel Model(const nlohmann::json& variant, const std::string& file_type) {
  model::OnnxModel m;
  m.meta = testing::OnnxMeta(variant);
  m.meta["source"]["file_type"] = file_type;
  m.variant = variant.value("name", "");
  return m;
}

TEST(ConversionProvenance, SaysWhatItWasConvertedFromAndWhetherItIsRequantized) {
  const nlohmann::json fp32 = ConversionProvenance(Model({{"name", "fp32"}}, "Q4_1"), "smol");
  EXPECT_EQ(fp32.value("format", ""), "pipette-conversion/1");
  EXPECT_EQ(fp32.value("label", ""), "fp32");
  EXPECT_EQ(fp32["base"].value("name", ""), "smol");
  EXPECT_EQ(fp32["base"].value("quant", ""), "Q4_1");
  EXPECT_EQ(fp32["base"].value("sha256", ""), std::string(64, 'a'));
  EXPECT_FALSE(fp32.value("requantized", true));
  EXPECT_EQ(fp32.value("note", ""),
            "converted from Q4_1: its weights are that file's, dequantized");
  EXPECT_EQ(fp32["model"].value("n_layer", 0), 30);
  EXPECT_EQ(quant::OriginNote(fp32), "converted from Q4_1");

  const nlohmann::json int8 = ConversionProvenance(Model({{"name", "int8-dynamic"}}, "Q4_1"), "");
  EXPECT_EQ(int8.value("label", ""), "W8A8 (int8 dynamic)");
  EXPECT_EQ(int8["base"].value("name", ""), "SmolLM2-135M-Instruct.Q4_1");  // the GGUF's stem
  EXPECT_TRUE(int8.value("requantized", false));
  EXPECT_EQ(quant::OriginNote(int8), "re-quantized from Q4_1");

  const nlohmann::json from_f16 =
      ConversionProvenance(Model({{"name", "int8-dynamic"}}, "F16"), "");
  EXPECT_FALSE(from_f16.value("requantized", true));
  EXPECT_EQ(from_f16.value("note", ""), "converted from F16");
}

}  // namespace
}  // namespace pipette::convert
