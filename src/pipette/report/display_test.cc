#include "pipette/report/display.h"

#include <gtest/gtest.h>

#include "pipette/runtime/registry.h"

namespace pipette::report {
namespace {

TEST(Display, QuantAndItsFootnote) {
  metrics::ResultRow r;
  r.EditCell().quant = "Q4_K_M";
  EXPECT_EQ(QuantDisplay(r), "Q4_K_M");
  EXPECT_EQ(RequantNote(r), "");
  r.EditCell().quant_origin = "quantized from F16";
  EXPECT_EQ(QuantDisplay(r), "Q4_K_M");
  r.EditCell().quant_origin = "re-quantized from Q4_1";
  EXPECT_EQ(QuantDisplay(r), "Q4_K_M*");
  EXPECT_EQ(RequantNote(r).rfind("* re-quantized from Q4_1: the base file is already quantized", 0),
            0u);
  EXPECT_EQ(DimensionDisplay(r, "quant", runtime::Registry().Params()), "Q4_K_M*");
}

TEST(Display, ParametersSayWhatTheRuntimeChose) {
  metrics::ResultRow r;
  r.EditCell().params = {{"threads", 2}, {"flash_attn", "on"}, {"type_k", "f16"}};
  EXPECT_EQ(ParamDisplay(r, "threads", runtime::Registry().Params()), "2");
  EXPECT_EQ(ParamDisplay(r, "type_k", runtime::Registry().Params()), "f16");
  EXPECT_EQ(ParamDisplay(r, "n_batch", runtime::Registry().Params()), "");
  EXPECT_EQ(ParamDisplay(r, "flash_attn", runtime::Registry().Params()),
            "on (auto)");  // left to the runtime
  r.EditCell().params_set = {{"flash_attn", "on"}};
  EXPECT_EQ(ParamDisplay(r, "flash_attn", runtime::Registry().Params()), "on");
  r.EditCell().params["flash_attn"] = "auto";
  r.EditCell().params_set = nlohmann::json::object();
  EXPECT_EQ(ParamDisplay(r, "flash_attn", runtime::Registry().Params()), "auto (unresolved)");
  r.EditCell().runtime = "llama.cpp";
  r.EditCell().runtime_version = "0.3.36";
  EXPECT_EQ(DimensionDisplay(r, "runtime", runtime::Registry().Params()), "llama.cpp 0.3.36");
  EXPECT_EQ(DimensionDisplay(r, "threads", runtime::Registry().Params()), "2");
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
