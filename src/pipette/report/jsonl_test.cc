#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "pipette/report/formats.h"
#include "pipette/runtime/registry.h"
#include "pipette/workload/registry.h"

namespace pipette::report {
namespace {

std::string Render(const std::string& format, const ReportData& d) {
  std::ostringstream out;
  (*FindFormat(format))
      ->render(BuildReport(d, runtime::Registry().Params(), workload::Figures()), out);
  return out.str();
}

TEST(Jsonl, OneObjectPerLineWithTheFieldsOfTheJsonResults) {
  ReportData d;
  for (int i = 0; i < 3; ++i) {
    metrics::ResultRow r;
    auto& facts = r.EditCell();
    facts.run_id = 1;
    facts.cell_index = i;
    facts.model = "line\nbreak";  // escaped inside the JSON string: still one line
    r.test = "pp64";
    r.metric = "throughput";
    r.samples = {double(100 + i), double(101 + i)};
    r.summary = stats::Summarize(r.samples);
    r.value = r.summary.median;
    d.rows.push_back(r);
  }
  d.rows[1].na_reason = "not measured";
  const auto doc = nlohmann::ordered_json::parse(Render("json", d));
  std::istringstream lines(Render("jsonl", d));
  std::string line;
  size_t n = 0;
  while (std::getline(lines, line)) {
    ASSERT_LT(n, doc["results"].size());
    const auto row = nlohmann::ordered_json::parse(line);
    EXPECT_EQ(row, doc["results"][n]);  // same fields, same order, same values
    EXPECT_EQ(row.dump(), doc["results"][n].dump());
    ++n;
  }
  EXPECT_EQ(n, 3u);
  EXPECT_TRUE(Render("jsonl", ReportData{}).empty());  // no rows, no lines
}

}  // namespace
}  // namespace pipette::report
