// Test fixture (tests only): derived rows of two quantizations at two thread counts, shared by
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

}  // namespace pipette::metrics::fixture
