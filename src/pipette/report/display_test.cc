#include "pipette/report/display.h"

#include <gtest/gtest.h>

namespace pipette::report {
namespace {

TEST(Display, QuantAndItsFootnote) {
  metrics::ResultRow r;
  r.quant = "Q4_K_M";
  EXPECT_EQ(QuantDisplay(r), "Q4_K_M");
  EXPECT_EQ(RequantNote(r), "");
  r.quant_origin = "quantized from F16";
  EXPECT_EQ(QuantDisplay(r), "Q4_K_M");
  r.quant_origin = "re-quantized from Q4_1";
  EXPECT_EQ(QuantDisplay(r), "Q4_K_M*");
  EXPECT_EQ(RequantNote(r).rfind("* re-quantized from Q4_1: the base file is already quantized", 0),
            0u);
  EXPECT_EQ(DimensionDisplay(r, "quant"), "Q4_K_M*");
}

TEST(Display, ParametersSayWhatTheRuntimeChose) {
  metrics::ResultRow r;
  r.params = {{"threads", 2}, {"flash_attn", "on"}, {"type_k", "f16"}};
  EXPECT_EQ(ParamDisplay(r, "threads"), "2");
  EXPECT_EQ(ParamDisplay(r, "type_k"), "f16");
  EXPECT_EQ(ParamDisplay(r, "n_batch"), "");
  EXPECT_EQ(ParamDisplay(r, "flash_attn"), "on (auto)");  // left to the runtime
  r.params_set = {{"flash_attn", "on"}};
  EXPECT_EQ(ParamDisplay(r, "flash_attn"), "on");
  r.params["flash_attn"] = "auto";
  r.params_set = nlohmann::json::object();
  EXPECT_EQ(ParamDisplay(r, "flash_attn"), "auto (unresolved)");
  r.runtime = "llama.cpp";
  r.runtime_version = "0.3.36";
  EXPECT_EQ(DimensionDisplay(r, "runtime"), "llama.cpp 0.3.36");
  EXPECT_EQ(DimensionDisplay(r, "threads"), "2");
}

TEST(Display, CountsAndFigures) {
  EXPECT_EQ(CountDisplay(950), "950");
  EXPECT_EQ(CountDisplay(134515008), "134.52 M");
  EXPECT_EQ(CountDisplay(1200000000), "1.20 B");
  metrics::ResultRow r;
  r.unit = "t/s";
  r.summary = stats::Summarize(std::vector<double>{100, 101, 99});
  EXPECT_EQ(FigureDisplay(r), "100.00 ± 1.00 t/s");
  r.summary = stats::Summarize(std::vector<double>{50, 60, 40});
  EXPECT_EQ(FigureDisplay(r), "50.00 ± 10.00 t/s (noisy: CV 20.0%)");
}

}  // namespace
}  // namespace pipette::report
