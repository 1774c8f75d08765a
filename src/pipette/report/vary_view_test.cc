#include "pipette/report/vary_view.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "pipette/metrics/vary_test_rows.h"
#include "pipette/report/markdown.h"
#include "pipette/runtime/registry.h"
#include "pipette/testing/golden.h"
#include "pipette/workload/registry.h"

namespace pipette::report {
namespace {

std::vector<metrics::ResultRow> Rows() { return metrics::fixture::VaryRows(); }

VaryView View(const std::vector<metrics::ResultRow>& rows, const std::string& dim) {
  auto t = metrics::BuildVaryTable(rows, dim, runtime::Registry().Params(), workload::Figures());
  EXPECT_TRUE(t.ok()) << t.error().message;
  return t ? BuildVaryView(*t, rows, runtime::Registry().Params()) : VaryView{};
}

using pipette::testing::ExpectGolden;

std::string Cell(const Table& t, size_t row, size_t col) {
  return std::get<std::string>(t.rows.at(row).values.at(col));
}

TEST(VaryView, NamesGroupsAndRowsWithRatios) {
  const VaryView v = View(Rows(), "quant");
  ASSERT_EQ(v.tables.size(), 2u);
  const Table& t = v.tables[0];
  EXPECT_EQ(t.title,
            "varying quant; fixed: runtime=llama.cpp 0.3.36, device=Test CPU, threads=1, "
            "run=1");
  ASSERT_EQ(t.columns.size(), 4u);  // quant, tg16 t/s, peak RSS, ppl
  EXPECT_EQ(t.columns[1].name, "tg16 t/s");
  EXPECT_EQ(t.columns[2].unit, "bytes");
  EXPECT_EQ(Cell(t, 0, 0), "Q8_0 (smol-Q8_0)");
  EXPECT_EQ(Cell(t, 1, 1), "75 (1.50x)");
  EXPECT_EQ(Cell(t, 1, 2), "120 B (0.60x)");
  EXPECT_EQ(Cell(t, 1, 3), "");  // no ppl measured at threads=1
  EXPECT_TRUE(v.notes.empty());
}

TEST(VaryView, BaseModelsAndRequantizedVariants) {
  std::vector<metrics::ResultRow> rows = Rows();
  for (auto& r : rows) {
    r.EditCell().base_model = "smol";
    r.EditCell().family = "SmolLM2";
  }
  rows[2].EditCell().quant_origin = "re-quantized from Q8_0";
  const VaryView v = View(rows, "quant");
  ASSERT_EQ(v.tables.size(), 2u);
  EXPECT_EQ(v.tables[0].title.rfind("varying quant; fixed: base=smol, runtime=", 0), 0u)
      << v.tables[0].title;
  EXPECT_EQ(Cell(v.tables[0], 1, 0), "Q4_1* (smol-Q4_1)");
  ASSERT_EQ(v.notes.size(), 1u);
  EXPECT_EQ(v.notes[0].rfind("* re-quantized from Q8_0: ", 0), 0u) << v.notes[0];
}

// Golden output; after an intended change: PIPETTE_UPDATE_GOLDEN=1 build/pipette_unit_tests
// --gtest_filter='VaryView*'
TEST(VaryView, MarkdownGolden) {
  std::ostringstream out;
  WriteVaryMarkdown(View(Rows(), "quant"), out);
  ExpectGolden(out.str(), "vary.md");
}

TEST(VaryView, RuntimesAndSchemesNameTheirRows) {
  const VaryView runtimes = View(metrics::fixture::RuntimeVaryRows(), "runtime");
  ASSERT_EQ(runtimes.tables.size(), 3u);
  const Table& f32 = runtimes.tables[0];
  EXPECT_EQ(f32.title,
            "varying runtime; fixed: weights=Smol f32, device=Test CPU, threads=2, run=1");
  EXPECT_EQ(Cell(f32, 0, 0), "llama.cpp 0.3.36 (smol:F32; flash_attn=on; n_batch=768; n_ctx=768)");
  EXPECT_EQ(Cell(f32, 1, 0), "llama.cpp 0.3.36 (smol:F32; flash_attn=off; n_batch=768; n_ctx=768)");
  EXPECT_EQ(Cell(f32, 2, 0), "onnxruntime 1.32.0 (smol:onnx-fp32; n_batch=512; n_ctx=700)");
  EXPECT_EQ(Cell(f32, 2, 1), "20 (0.50x)");
  ASSERT_EQ(runtimes.notes.size(), 2u);
  EXPECT_EQ(runtimes.notes[0],
            "n_batch: each runtime applies its own rule, so rows may differ in it "
            "(docs/config.md gives each runtime's default and rule)");
  EXPECT_EQ(runtimes.notes[1].rfind("n_ctx: each runtime applies its own rule, so rows", 0), 0u)
      << runtimes.notes[1];

  const VaryView schemes = View(metrics::fixture::RuntimeVaryRows(), "scheme");
  ASSERT_EQ(schemes.tables.size(), 1u);
  const Table& t = schemes.tables[0];
  EXPECT_EQ(t.columns[0].name, "scheme");
  ASSERT_EQ(t.rows.size(), 5u);
  EXPECT_EQ(Cell(t, 3, 0), "Q4_1 · llama.cpp 0.3.36 (smol; n_batch=768; n_ctx=768)");
  EXPECT_EQ(Cell(t, 4, 0),
            "W4A16 (int4 RTN, block 32) · onnxruntime 1.32.0 (smol:onnx-int4-rtn; n_batch=512; "
            "n_ctx=700)");
  EXPECT_EQ(Cell(t, 4, 1), "60 (1.50x)");
  std::ostringstream out;
  WriteVaryMarkdown(schemes, out);
  ExpectGolden(out.str(), "vary-scheme.md");
}

TEST(VaryView, NothingToCompare) {
  std::ostringstream out;
  WriteVaryMarkdown(View({}, "quant"), out);
  EXPECT_EQ(out.str(), "(no completed cells to compare)\n");
}

}  // namespace
}  // namespace pipette::report
