// The HTML report's sections after its summary: the controlled-variable views and the charts,
// each chart a Vega-Lite specification with its data inline. Built once from ReportData
// (BuildReport with ReportParts::kPage); report/html.cc renders it and computes nothing.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipette/metrics/figures.h"
#include "pipette/metrics/headline.h"
#include "pipette/report/data.h"
#include "pipette/report/table.h"
#include "pipette/runtime/params.h"

namespace pipette::report {

struct Chart {
  std::string id;               // unique in the page: "quality-speed-ppl"
  std::string title;            // shown above the chart
  nlohmann::ordered_json spec;  // Vega-Lite v6, its data inline
};

struct PageSection {
  std::string id;     // the HTML anchor
  std::string title;  // its heading
  std::string about;  // one sentence: what it shows and how to read it
  // Set when the section has nothing to show: why, and what run would fill it. Then it has no
  // table and no chart, and the page folds it into one line with the others (html.cc).
  std::string empty;
  // With `empty`: what to add to the experiment to fill it, in a few words ("threads: [1, 2,
  // 4]"); "" where no experiment setting does.
  std::string fill;
  std::vector<Table> tables;
  std::vector<Chart> charts;
};

// The sections, in page order: controlled variables; quality against speed and memory (the
// Pareto frontier drawn); speed by threads; speed by batch size; PPL and KLD by quantization;
// context depth; sustained decoding; per-repetition samples. `curves`: the Report's curve tables
// (shown in their sections).
std::vector<PageSection> BuildPage(const ReportData& data, const std::vector<Table>& curves,
                                   const runtime::ParamRegistry& params,
                                   const metrics::FigureCatalogue& figures);

// Every chart of the page as one document, {"charts": [{"section", "id", "title", "spec"}]}: what
// the golden test keeps (tests/golden/report.charts.json).
nlohmann::ordered_json ChartSpecs(const std::vector<PageSection>& page);

}  // namespace pipette::report
