#include "pipette/metrics/vary.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "pipette/metrics/vary_test_rows.h"
#include "pipette/runtime/registry.h"
#include "pipette/workload/registry.h"

namespace pipette::metrics {
namespace {

ResultRow Row(const std::string& quant, int threads, const std::string& test,
              const std::string& metric, const std::string& unit, double value) {
  return fixture::VaryRow(quant, threads, test, metric, unit, value);
}

std::vector<ResultRow> Rows() { return fixture::VaryRows(); }
std::vector<ResultRow> RuntimeRows() { return fixture::RuntimeVaryRows(); }

TEST(Vary, GroupsByTheFixedDimensionsWithRatiosToTheFirstRow) {
  auto t = BuildVaryTable(Rows(), "quant", runtime::Registry().Params(), workload::Figures());
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->groups.size(), 2u);   // threads=1 and threads=2
  ASSERT_EQ(t->columns.size(), 3u);  // tg16 t/s, peak RSS, ppl
  EXPECT_EQ(t->fixed, (std::vector<std::string>{"runtime", "device", "threads"}));
  const VaryGroup& g = t->groups[0];
  EXPECT_EQ(g.source, 0u);  // its fixed values are those of the first row (threads=1)
  ASSERT_EQ(g.rows.size(), 2u);
  EXPECT_EQ(g.rows[0].source, 0u);  // Q8_0
  EXPECT_EQ(g.rows[1].source, 2u);  // Q4_1
  EXPECT_EQ(t->groups[1].source, 4u);
  EXPECT_EQ(t->sources.size(), Rows().size());  // every row gave a figure
  EXPECT_DOUBLE_EQ(*g.rows[1].values[0], 75);
  EXPECT_DOUBLE_EQ(*g.rows[1].ratios[0], 1.5);
  EXPECT_DOUBLE_EQ(*g.rows[1].ratios[1], 0.6);
  EXPECT_FALSE(g.rows[0].values[2].has_value());  // no ppl measured at threads=1
  EXPECT_FALSE(g.rows[1].ratios[2].has_value());
}

TEST(Vary, ParameterDimensionAndUnknownDimension) {
  auto t = BuildVaryTable(Rows(), "threads", runtime::Registry().Params(), workload::Figures());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->groups.size(), 2u);  // one per model file
  EXPECT_DOUBLE_EQ(*t->groups[0].rows[1].ratios[0], 90.0 / 50.0);
  auto bad = BuildVaryTable(Rows(), "thread", runtime::Registry().Params(), workload::Figures());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().exit_code, 2);
  EXPECT_NE(bad.error().message.find("did you mean 'threads'"), std::string::npos);
}

TEST(Vary, FilesOfOneModelShareATableNamedByPipettesBaseModel) {
  // A base and its variant, and a second file of the same model (same general.name), each
  // with Pipette's name for its model as base_model; and another model.
  auto row = [](const std::string& model, const std::string& quant, const std::string& base,
                const std::string& family, double value) {
    ResultRow r = Row(quant, 1, "tg16", "throughput", "t/s", value);
    auto& facts = r.EditCell();
    facts.model = model;
    facts.base_model = base;
    facts.family = family;
    return r;
  };
  const std::vector<ResultRow> rows = {
      row("smol", "Q4_1", "smol", "Smollm2 135M 8k Lc100K Mix1 Ep2", 50),
      row("smol:Q4_0", "Q4_0", "smol", "Smollm2 135M 8k Lc100K Mix1 Ep2", 60),
      row("smol-q8", "Q8_0", "smol-q8", "Smollm2 135M 8k Lc100K Mix1 Ep2", 40),
      row("gemma", "Q4_K_M", "gemma", "Gemma 3 270m", 30)};
  auto t = BuildVaryTable(rows, "quant", runtime::Registry().Params(), workload::Figures());
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->groups.size(), 2u);
  EXPECT_EQ(t->groups[0].base_models, (std::vector<std::string>{"smol", "smol-q8"}));
  EXPECT_EQ(t->groups[0].rows.size(), 3u);
  EXPECT_EQ(t->groups[1].base_models, (std::vector<std::string>{"gemma"}));
}

TEST(Vary, RuntimesShareATableOfTheSameWeightsInTheSamePrecision) {
  // llama.cpp on an F32 GGUF and ONNX Runtime on its fp32 conversion: two files of one model
  // in one precision; the Q4_1 GGUF has no partner; another family is apart.
  auto row = [](const std::string& model, const std::string& quant, const std::string& runtime,
                const std::string& family, double value) {
    ResultRow r = Row(quant, 2, "tg16", "throughput", "t/s", value);
    auto& facts = r.EditCell();
    facts.model = model;
    facts.runtime = runtime;
    facts.runtime_version = runtime == "llama.cpp" ? "0.3.36" : "1.32.0";
    facts.family = family;
    return r;
  };
  const std::vector<ResultRow> rows = {row("smol:F32", "F32", "llama.cpp", "Smol", 40),
                                       row("smol", "Q4_1", "llama.cpp", "Smol", 90),
                                       row("smol:onnx-fp32", "fp32", "onnxruntime", "Smol", 20),
                                       row("gem:onnx-fp32", "fp32", "onnxruntime", "Gem", 10)};
  auto t = BuildVaryTable(rows, "runtime", runtime::Registry().Params(), workload::Figures());
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->fixed, (std::vector<std::string>{"device", "threads"}));
  ASSERT_EQ(t->groups.size(), 3u);
  EXPECT_EQ(t->groups[0].family, "Smol");
  EXPECT_EQ(t->groups[0].precision, "f32");
  ASSERT_EQ(t->groups[0].rows.size(), 2u);
  EXPECT_EQ(t->groups[0].rows[1].source, 2u);  // ONNX Runtime beside llama.cpp
  EXPECT_DOUBLE_EQ(*t->groups[0].rows[1].ratios[0], 0.5);
  EXPECT_EQ(t->groups[1].precision, "Q4_1");
  EXPECT_EQ(t->groups[1].rows.size(), 1u);
  EXPECT_EQ(WeightPrecision("FP16"), "f16");
  EXPECT_EQ(WeightPrecision("BF16"), "bf16");
  EXPECT_EQ(WeightPrecision("W8A8 (int8 dynamic)"), "W8A8 (int8 dynamic)");
}

TEST(Vary, RuntimesAreComparedOnWhatEveryRuntimeHas) {
  const std::vector<ResultRow> rows = RuntimeRows();
  auto t = BuildVaryTable(rows, "runtime", runtime::Registry().Params(), workload::Figures());
  ASSERT_TRUE(t.ok()) << t.error().message;
  // flash_attn and graph_optimization are one runtime's each, and each runtime rounds n_ctx and
  // clamps n_batch its own way: they name rows, not groups.
  EXPECT_EQ(t->fixed, (std::vector<std::string>{"device", "threads"}));
  EXPECT_EQ(t->row_params, (std::vector<std::string>{"flash_attn", "graph_optimization"}));
  EXPECT_EQ(t->planned_params, (std::vector<std::string>{"n_batch", "n_ctx"}));
  ASSERT_EQ(t->groups.size(), 3u);  // f32; Q4_1; int4 RTN
  const VaryGroup& f32 = t->groups[0];
  ASSERT_EQ(f32.rows.size(), 3u);  // llama.cpp twice (flash attention on and off), ONNX Runtime
  EXPECT_EQ(f32.rows[1].source, 1u);
  // llama.cpp's two rows differ in flash_attn; the group's rows differ in n_batch (768, 512) and
  // n_ctx (768, 700).
  EXPECT_EQ(f32.rows[0].shown_params, (std::vector<std::string>{"flash_attn", "n_batch", "n_ctx"}));
  EXPECT_EQ(f32.rows[1].shown_params, (std::vector<std::string>{"flash_attn", "n_batch", "n_ctx"}));
  EXPECT_EQ(f32.rows[2].shown_params, (std::vector<std::string>{"n_batch", "n_ctx"}));
  EXPECT_DOUBLE_EQ(*f32.rows[2].ratios[0], 0.5);
  EXPECT_TRUE(t->groups[1].rows[0].shown_params.empty());  // alone in its group

  // Another n_ctx of the same runtime and model is another row, named by it.
  std::vector<ResultRow> longer = rows;
  longer.push_back(rows[2]);
  longer.back().EditCell().params["n_ctx"] = 1024;
  auto more = BuildVaryTable(longer, "runtime", runtime::Registry().Params(), workload::Figures());
  ASSERT_TRUE(more.ok());
  ASSERT_EQ(more->groups.size(), 3u);
  EXPECT_EQ(more->groups[0].rows.size(), 4u);
}

TEST(Vary, SchemesOfOneModelShareOneTable) {
  const std::vector<ResultRow> rows = RuntimeRows();
  auto t = BuildVaryTable(rows, "scheme", runtime::Registry().Params(), workload::Figures());
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->fixed, (std::vector<std::string>{"device", "threads"}));
  ASSERT_EQ(t->groups.size(), 1u);
  ASSERT_EQ(t->groups[0].rows.size(), 5u);  // every quantization under every runtime
  EXPECT_DOUBLE_EQ(*t->groups[0].rows[3].ratios[0], 90.0 / 40.0);
  // Other dimensions never hold the scheme fixed: it is model, quant and runtime together.
  auto threads = BuildVaryTable(rows, "threads", runtime::Registry().Params(), workload::Figures());
  ASSERT_TRUE(threads.ok());
  EXPECT_EQ(std::count(threads->fixed.begin(), threads->fixed.end(), "scheme"), 0);
}

TEST(Vary, DimensionKeysTellValuesApart) {
  ResultRow a = Row("Q4_K_M", 1, "tg16", "throughput", "t/s", 1);
  ResultRow b = a;
  b.EditCell().quant_origin = "re-quantized from Q4_1";
  EXPECT_NE(DimensionKey(a, "quant", runtime::Registry().Params()),
            DimensionKey(b, "quant", runtime::Registry().Params()));
  EXPECT_EQ(DimensionKey(a, "threads", runtime::Registry().Params()), "1");
  EXPECT_EQ(DimensionKey(a, "n_batch", runtime::Registry().Params()),
            "");  // not a parameter of the row
  a.EditCell().params["flash_attn"] = "on";
  b.EditCell().params["flash_attn"] = "on";
  b.EditCell().params_set["flash_attn"] = "on";  // asked for, not left to the runtime
  EXPECT_NE(DimensionKey(a, "flash_attn", runtime::Registry().Params()),
            DimensionKey(b, "flash_attn", runtime::Registry().Params()));
}

}  // namespace
}  // namespace pipette::metrics
