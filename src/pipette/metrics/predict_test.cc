#include "pipette/metrics/predict.h"

#include <gtest/gtest.h>

#include "pipette/workload/registry.h"

namespace pipette::metrics {
namespace {

// One cell's tg128: its throughput and bytes per token rows.
void AddCell(std::vector<ResultRow>& rows, int64_t cell_id, const std::string& quant, double tps,
             double bytes, const std::string& device = "dev1", int64_t depth = 0) {
  ResultRow base;
  CellFacts& f = base.EditCell();
  f.cell_id = cell_id;
  f.model = "m-" + quant;
  f.quant = quant;
  f.device = device;
  f.device_id = device;
  f.runtime = "llama.cpp";
  f.runtime_version = "b1";
  // n_ctx sized for the depth, as Pipette's default does.
  f.params = {{"threads", 2}, {"depth", depth}, {"n_ctx", depth + 256}, {"n_batch", depth + 256}};
  ResultRow t = base;
  t.test = "tg128";
  t.metric = "throughput";
  t.unit = "t/s";
  t.value = tps;
  rows.push_back(t);
  ResultRow b = base;
  b.test = "tg128";
  b.metric = "bytes_per_token";
  b.unit = "bytes";
  b.value = bytes;
  rows.push_back(b);
}

TEST(PredictTest, BandwidthBoundVariantsArePredicted) {
  std::vector<ResultRow> rows;
  AddCell(rows, 1, "Q4_0", 40, 100e6);  // moves 4 GB/s
  AddCell(rows, 2, "Q8_0", 20, 200e6);  // exactly as predicted
  AddCell(rows, 3, "F16", 8, 400e6);    // predicted 10: 25% high
  auto groups = Predict(rows, "", workload::Figures());
  ASSERT_TRUE(groups) << groups.error().message;
  ASSERT_EQ(groups->size(), 1u);
  const PredictionGroup& g = (*groups)[0];
  EXPECT_EQ(g.reference->cell->quant, "Q4_0");
  EXPECT_DOUBLE_EQ(g.moved_bytes_per_s, 4e9);
  EXPECT_EQ(g.params, "threads=2");  // depth, and the context sized for it, vary within a group
  ASSERT_EQ(g.rows.size(), 3u);
  EXPECT_TRUE(g.rows[0].reference);
  EXPECT_DOUBLE_EQ(g.rows[1].predicted, 20);
  EXPECT_DOUBLE_EQ(g.rows[1].error, 0);
  EXPECT_DOUBLE_EQ(g.rows[2].predicted, 10);
  EXPECT_DOUBLE_EQ(g.rows[2].error, 0.25);
  ASSERT_TRUE(g.median_abs_error);
  EXPECT_DOUBLE_EQ(*g.median_abs_error, 0.125);
  EXPECT_EQ(g.bandwidth_bound, false);
}

TEST(PredictTest, FromAVariantAndPerDevice) {
  std::vector<ResultRow> rows;
  AddCell(rows, 1, "Q4_0", 40, 100e6);
  AddCell(rows, 2, "Q8_0", 25, 200e6);
  AddCell(rows, 3, "Q4_0", 10, 100e6, "dev2");
  auto groups = Predict(rows, "Q8_0", workload::Figures());
  ASSERT_TRUE(groups) << groups.error().message;
  ASSERT_EQ(groups->size(), 1u);  // dev2 has no Q8_0 figure to predict from
  EXPECT_EQ((*groups)[0].reference->cell->quant, "Q8_0");
  EXPECT_DOUBLE_EQ((*groups)[0].rows[0].predicted, 50);  // Q4_0 from Q8_0: 5 GB/s / 100 MB
  groups = Predict(rows, "", workload::Figures());
  ASSERT_TRUE(groups);
  EXPECT_EQ(groups->size(), 2u);
  EXPECT_FALSE((*groups)[1].median_abs_error);  // dev2: one figure, nothing to compare
  EXPECT_FALSE((*groups)[1].bandwidth_bound);
}

TEST(PredictTest, DepthsOfOneVariantAreOneGroup) {
  std::vector<ResultRow> rows;
  AddCell(rows, 1, "Q4_0", 40, 100e6);
  AddCell(rows, 2, "Q4_0", 27, 150e6, "dev1", 4096);  // n_ctx 4352 there
  auto groups = Predict(rows, "", workload::Figures());
  ASSERT_TRUE(groups) << groups.error().message;
  ASSERT_EQ(groups->size(), 1u);
  ASSERT_EQ((*groups)[0].rows.size(), 2u);
  EXPECT_EQ((*groups)[0].rows[1].depth, 4096);
  EXPECT_NEAR((*groups)[0].rows[1].predicted, 4e9 / 150e6, 1e-9);
  // Predicted 26.7 t/s against 27 measured: 1.2% off, a bandwidth-bound device.
  EXPECT_EQ((*groups)[0].bandwidth_bound, true);
}

TEST(PredictTest, UnknownReferenceNamesTheVariants) {
  std::vector<ResultRow> rows;
  AddCell(rows, 1, "Q4_0", 40, 100e6);
  auto groups = Predict(rows, "Q5_K_M", workload::Figures());
  ASSERT_FALSE(groups);
  EXPECT_EQ(groups.error().exit_code, 2);
  EXPECT_NE(groups.error().message.find("m-Q4_0 (Q4_0)"), std::string::npos)
      << groups.error().message;
}

TEST(PredictTest, FiguresWithoutBytesAreLeftOut) {
  std::vector<ResultRow> rows;
  AddCell(rows, 1, "Q4_0", 40, 100e6);
  rows.pop_back();  // no bytes_per_token: an ONNX model's figure
  auto groups = Predict(rows, "", workload::Figures());
  ASSERT_TRUE(groups);
  EXPECT_TRUE(groups->empty());
}

}  // namespace
}  // namespace pipette::metrics
