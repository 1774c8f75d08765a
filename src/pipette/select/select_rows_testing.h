// The rows the select tests and the view's golden tests share: four cells of one run, three on
// this machine and one on a board, with tg128, peak RSS and mc accuracy.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/select/profile.h"
#include "pipette/workload/registry.h"

namespace pipette::select::fixture {

using metrics::ResultRow;

constexpr double kGiB = 1024.0 * 1024 * 1024;

// The rows of one cell: tg128 t/s (three repetitions), peak RSS, and mc accuracy when given.
inline std::vector<ResultRow> Cell(int index, const std::string& model, const std::string& quant,
                                   std::vector<double> tg, double rss, std::optional<double> acc,
                                   const std::string& device = "Intel Xeon") {
  ResultRow base;
  metrics::CellFacts& c = base.EditCell();
  c.run_id = 1;
  c.cell_index = index;
  c.cell_status = "ok";
  c.model = model;
  c.quant = quant;
  c.runtime = "llama.cpp";
  c.device = device;
  c.params = {{"threads", 2}};
  std::vector<ResultRow> rows;
  ResultRow t = base;
  t.test = "tg128";
  t.metric = "throughput";
  t.unit = "t/s";
  t.samples = tg;
  t.summary = stats::Summarize(t.samples);
  t.value = t.summary.median;
  rows.push_back(t);
  ResultRow m = base;
  m.test = "memory";
  m.metric = "peak_rss";
  m.unit = "bytes";
  m.samples = {rss};
  m.summary = stats::Summarize(m.samples);
  m.value = rss;
  rows.push_back(m);
  if (acc) {
    ResultRow a = base;
    a.test = "mc";
    a.metric = "acc";
    a.unit = "fraction";
    a.value = *acc;
    rows.push_back(a);
  }
  return rows;
}

inline std::vector<ResultRow> Fixture() {
  std::vector<ResultRow> rows;
  for (auto cell :
       {Cell(0, "small", "Q4_0", {20, 20.2, 19.8}, 1.0 * kGiB, 0.40),
        Cell(1, "big", "Q4_K_M", {16, 16.5, 15.5}, 1.4 * kGiB, 0.55),
        Cell(2, "big", "F16", {9, 9.1, 8.9}, 2.5 * kGiB, 0.57),
        Cell(3, "small", "Q4_0", {8, 8.1, 7.9}, 1.0 * kGiB, 0.40, "board: Cortex-A76")}) {
    rows.insert(rows.end(), cell.begin(), cell.end());
  }
  return rows;
}

inline Profile TestProfile() {
  Profile p;
  p.name = "test";
  p.source = "p.yaml";
  for (const char* c : {"peak_rss <= 1.5GiB", "tg128 >= 15 t/s", "ttft@512 <= 800ms"}) {
    p.constraints.push_back(*ParseConstraint(c, "p.yaml", 1, 1, &workload::Figures()));
  }
  p.weights = {0.5, 0.5, 0, 0};
  return p;
}

}  // namespace pipette::select::fixture
