// Test fixture (tests only): derived rows of two quantizations at two thread counts, and of
// three runtimes' files of one model, shared by
// the tests of the vary grouping (metrics/vary_test.cc) and of its tables
// (report/vary_view_test.cc).
#pragma once

#include <string>
#include <vector>

#include "pipette/metrics/derive.h"

namespace pipette::metrics::fixture {

inline ResultRow VaryRow(const std::string& quant, int threads, const std::string& test,
                         const std::string& metric, const std::string& unit, double value) {
  ResultRow r;
  auto& facts = r.EditCell();
  facts.run_id = 1;
  facts.cell_status = "ok";
  facts.model = "smol-" + quant;
  facts.quant = quant;
  facts.runtime = "llama.cpp";
  facts.runtime_version = "0.3.36";
  facts.device = "Test CPU";
  facts.params = {{"threads", threads}};
  r.test = test;
  r.metric = metric;
  r.unit = unit;
  r.value = value;
  return r;
}

// tg16 and peak RSS of Q8_0 and Q4_1 at threads=1; tg16 of both and a ppl of Q4_1 at threads=2.
inline std::vector<ResultRow> VaryRows() {
  return {VaryRow("Q8_0", 1, "tg16", "throughput", "t/s", 50),
          VaryRow("Q8_0", 1, "memory", "peak_rss", "bytes", 200),
          VaryRow("Q4_1", 1, "tg16", "throughput", "t/s", 75),
          VaryRow("Q4_1", 1, "memory", "peak_rss", "bytes", 120),
          VaryRow("Q8_0", 2, "tg16", "throughput", "t/s", 90),
          VaryRow("Q4_1", 2, "tg16", "throughput", "t/s", 120),
          VaryRow("Q4_1", 2, "ppl", "ppl", "", 21.0)};
}

// llama.cpp on an F32 GGUF with flash attention on and off, and ONNX Runtime on its fp32
// conversion: llama.cpp rounded the context the plan asked for (0: just enough) up to 768, ONNX
// Runtime ran 700; each clamped its own default n_batch (llama.cpp's 2048, the worker's 512) to
// that; each has a parameter the other lacks.
inline std::vector<ResultRow> RuntimeVaryRows() {
  auto row = [](const std::string& model, const std::string& quant, const std::string& runtime,
                nlohmann::json params, double value) {
    ResultRow r = VaryRow(quant, 2, "tg16", "throughput", "t/s", value);
    auto& facts = r.EditCell();
    facts.model = model;
    facts.runtime = runtime;
    facts.runtime_version = runtime == "llama.cpp" ? "0.3.36" : "1.32.0";
    facts.family = "Smol";
    params["threads"] = 2;
    facts.params = params;
    facts.params_set = {{"threads", 2}};  // and flash_attn where it has one: asked for
    if (params.contains("flash_attn")) facts.params_set["flash_attn"] = params["flash_attn"];
    return r;
  };
  return {row("smol:F32", "F32", "llama.cpp",
              {{"n_ctx", 768}, {"n_batch", 768}, {"flash_attn", "on"}}, 40),
          row("smol:F32", "F32", "llama.cpp",
              {{"n_ctx", 768}, {"n_batch", 768}, {"flash_attn", "off"}}, 38),
          row("smol:onnx-fp32", "fp32", "onnxruntime",
              {{"n_ctx", 700}, {"n_batch", 512}, {"graph_optimization", "all"}}, 20),
          row("smol", "Q4_1", "llama.cpp", {{"n_ctx", 768}, {"n_batch", 768}, {"flash_attn", "on"}},
              90),
          row("smol:onnx-int4-rtn", "W4A16 (int4 RTN, block 32)", "onnxruntime",
              {{"n_ctx", 700}, {"n_batch", 512}, {"graph_optimization", "all"}}, 60)};
}

}  // namespace pipette::metrics::fixture
