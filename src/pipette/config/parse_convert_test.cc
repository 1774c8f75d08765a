#include "pipette/config/parse_convert.h"

#include <gtest/gtest.h>

#include "pipette/config/canonical.h"
#include "pipette/config/parse.h"
#include "pipette/config/parse_testing.h"

namespace pipette::config {
namespace {

// Parsing is pure: the base named here is not looked for.
Result<WrittenExperiment> Parse(const std::string& convert) {
  return ParseExperiment("tests: [pp16]\n" + convert, "ex.yaml", runtime::ParamRegistry::Default(),
                         testing::TestsOnly(), runtime::Registry());
}

std::string ErrorOf(const std::string& convert) {
  auto r = Parse(convert);
  EXPECT_FALSE(r.ok()) << convert;
  if (r.ok()) return "";
  EXPECT_EQ(r.error().exit_code, 2);
  return r.error().message;
}

TEST(ParseConvert, OneEntryOrAListWithItsVariantsAndInt4Options) {
  auto ex = Parse(
      "convert:\n"
      "  base: smollm2-135m-instruct-q4_1\n"
      "  to: onnx\n"
      "  variants: [fp32, fp16, int8-dynamic, int4-rtn]\n"
      "  int4: {block_size: 64, symmetric: false}\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  ASSERT_EQ(ex->convert.size(), 1u);
  const WrittenConvert& c = ex->convert[0];
  EXPECT_EQ(c.base.ref, "smollm2-135m-instruct-q4_1");
  EXPECT_EQ(c.base.pos.line, 3);
  EXPECT_EQ(c.to, "onnx");
  EXPECT_EQ(c.variants, (std::vector<std::string>{"fp32", "fp16", "int8-dynamic", "int4-rtn"}));
  EXPECT_EQ(c.block_size, 64);
  EXPECT_EQ(c.symmetric, false);
  auto two = Parse("convert: [{base: a.gguf, variants: fp32}, {base: b.gguf, variants: [fp16]}]\n");
  ASSERT_TRUE(two.ok()) << two.error().message;
  ASSERT_EQ(two->convert.size(), 2u);
  EXPECT_FALSE(two->convert[0].to.has_value());  // not written: the canonical form leaves it out
  EXPECT_EQ(two->convert[1].variants, std::vector<std::string>{"fp16"});
}

TEST(ParseConvert, GptqTakesItsCalibrationOptions) {
  auto ex = Parse(
      "convert:\n  base: a.gguf\n  variants: [int4-rtn, int4-gptq]\n"
      "  gptq: {calibration: corpus.txt, tokens: 64, samples: 4, damp: 0.05}\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  const WrittenConvert& c = ex->convert[0];
  ASSERT_TRUE(c.calibration.has_value());
  EXPECT_EQ(c.calibration->path, "corpus.txt");
  EXPECT_EQ(c.calibration_tokens, 64);
  EXPECT_EQ(c.calibration_samples, 4);
  EXPECT_EQ(c.damp, 0.05);
  EXPECT_EQ(CanonicalForm(*ex)["convert"][0]["gptq"],
            nlohmann::json::parse(
                R"({"calibration": "corpus.txt", "tokens": 64, "samples": 4, "damp": 0.05})"));
  auto plain = Parse("convert: {base: a.gguf, variants: [int4-gptq]}\n");  // the defaults
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_FALSE(plain->convert[0].calibration.has_value());
}

TEST(ParseConvert, TheHashCoversItAsWritten) {
  auto a = Parse("convert: {base: a.gguf, variants: [fp32, int4-rtn], int4: {block_size: 32}}\n");
  auto b = Parse(
      "convert:\n  variants: [fp32, int4-rtn]   # same keys, another order\n"
      "  int4: {block_size: 32}\n  base: a.gguf\n");
  auto c = Parse("convert: {base: a.gguf, variants: [fp32, int4-rtn], int4: {block_size: 64}}\n");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(
      CanonicalForm(*a)["convert"],
      nlohmann::json::parse(
          R"([{"base": "a.gguf", "variants": ["fp32", "int4-rtn"], "int4": {"block_size": 32}}])"));
  EXPECT_EQ(ConfigHash(*a), ConfigHash(*b));
  EXPECT_NE(ConfigHash(*a), ConfigHash(*c));
}

TEST(ParseConvert, MnnTakesItsOwnVariants) {
  auto ex = Parse("convert: {base: a.gguf, variants: [int8, fp32], to: mnn}\n");  // to: after
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  EXPECT_EQ(ex->convert[0].to, "mnn");
  EXPECT_EQ(ex->convert[0].variants, (std::vector<std::string>{"int8", "fp32"}));
}

TEST(ParseConvert, BadInputNamesLineColumnAndSuggests) {
  EXPECT_EQ(ErrorOf("convert: {base: a.gguf, variant: [fp32]}\n"),
            "ex.yaml:2:25: unknown key 'variant' in convert (did you mean 'variants'?)");
  EXPECT_EQ(ErrorOf("convert: {base: a.gguf, variants: [fp23]}\n"),
            "ex.yaml:2:36: unknown variant 'fp23' (did you mean 'fp32'?) (variants: fp32, fp16, "
            "int8-dynamic, int4-rtn, int4-gptq)");
  EXPECT_EQ(ErrorOf("convert: {base: a.gguf, variants: [fp32], gptq: {tokens: 64}}\n"),
            "ex.yaml:2:49: gptq: options go with the int4-gptq variant, which is not listed");
  EXPECT_EQ(ErrorOf("convert: {base: a.gguf, variants: [int4-gptq], gptq: {token: 64}}\n"),
            "ex.yaml:2:55: unknown key 'token' in gptq (did you mean 'tokens'?)");
  EXPECT_EQ(ErrorOf("convert: {base: a.gguf, variants: [fp32, fp32]}\n"),
            "ex.yaml:2:42: variant 'fp32' is listed twice");
  EXPECT_EQ(ErrorOf("convert: {base: a.gguf, to: onx, variants: [fp32]}\n"),
            "ex.yaml:2:29: convert.to 'onx' (did you mean 'onnx'?): the targets are onnx, mnn");
  EXPECT_EQ(ErrorOf("convert: {base: a.gguf, to: mnn, variants: [int4-rtn]}\n"),
            "ex.yaml:2:45: unknown variant 'int4-rtn' (variants for mnn: fp32, int8)");
  EXPECT_EQ(ErrorOf("convert: {base: a.gguf, variants: [int4-rtn], int4: {block_size: 48}}\n"),
            "ex.yaml:2:66: int4.block_size 48 is not a power of 2 (16, 32, 64, 128 or 256)");
  EXPECT_NE(ErrorOf("convert: {base: a.gguf, variants: [int4-rtn], int4: {block_size: 512}}\n")
                .find("ex.yaml:2:66: "),
            std::string::npos);
  EXPECT_EQ(ErrorOf("convert: {base: a.gguf, variants: [int4-rtn], int4: {blocksize: 32}}\n"),
            "ex.yaml:2:54: unknown key 'blocksize' in int4 (did you mean 'block_size'?)");
  EXPECT_EQ(ErrorOf("convert: {base: a.gguf, variants: [int4-rtn], int4: {symmetric: 1}}\n"),
            "ex.yaml:2:65: field 'convert.int4.symmetric' must be true or false, got '1'");
  EXPECT_EQ(ErrorOf("convert: {base: a.gguf, variants: [fp32], int4: {block_size: 32}}\n"),
            "ex.yaml:2:49: int4: options go with an int4 variant (int4-rtn), and none is listed");
  EXPECT_EQ(ErrorOf("convert: {variants: [fp32]}\n"),
            "ex.yaml:2:10: convert: needs 'base:' (a model of this file, a bundled name or a "
            ".gguf path)");
  EXPECT_EQ(ErrorOf("convert: {base: a.gguf}\n"),
            "ex.yaml:2:10: convert: needs 'variants:' (e.g. [fp32, int8-dynamic, int4-rtn])");
  EXPECT_EQ(ErrorOf("convert: {base: a.gguf, variants: []}\n"),
            "ex.yaml:2:35: convert.variants: name at least one (fp32, fp16, int8-dynamic, "
            "int4-rtn, int4-gptq)");
  EXPECT_EQ(ErrorOf("convrt: {base: a.gguf, variants: [fp32]}\n").substr(0, 52),
            "ex.yaml:2:1: unknown key 'convrt' (did you mean 'con");
}

}  // namespace
}  // namespace pipette::config
