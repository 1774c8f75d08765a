#include "pipette/compare/view.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pipette/report/markdown.h"

namespace pipette::compare {

using report::Column;
using report::ColumnType;

report::Table ComparisonTable(const Comparison& c, bool for_text) {
  auto number = [&](std::optional<double> v) {
    if (!v) return report::Null();
    return for_text ? report::Text(fmt::format("{:.4g}", *v)) : report::Real(*v);
  };
  const ColumnType real = for_text ? ColumnType::kText : ColumnType::kReal;
  report::Table t;
  t.name = "comparison";
  t.columns = {{"figure", ColumnType::kText, "", report::Align::kLeft},
               {"metric", ColumnType::kText, "", report::Align::kLeft},
               {"unit", ColumnType::kText, "", report::Align::kLeft},
               {"baseline", real, "", report::Align::kRight},
               {"candidate", real, "", report::Align::kRight},
               {"ratio", real, "", report::Align::kRight},
               {"ci_low", real, "", report::Align::kRight},
               {"ci_high", real, "", report::Align::kRight},
               {"n", ColumnType::kText, "", report::Align::kRight},
               {"verdict", ColumnType::kText, "", report::Align::kLeft},
               {"gate", ColumnType::kText, "", report::Align::kLeft},
               {"why", ColumnType::kText, "", report::Align::kLeft}};
  for (const FigureComparison& f : c.figures) {
    const RatioChange& r = f.change;
    std::string gate;
    if (f.gate) gate = fmt::format("{} {}", f.gate_failed ? "FAILED" : "passed", f.gate->text);
    t.Add({report::Text(f.label), report::Text(f.metric), report::Text(f.unit),
           number(r.baseline_median), number(r.candidate_median), number(r.ratio),
           number(r.interval ? std::optional(r.interval->low) : std::nullopt),
           number(r.interval ? std::optional(r.interval->high) : std::nullopt),
           report::Text(fmt::format("{}/{}", r.baseline_n, r.candidate_n)),
           report::Text(VerdictName(r.verdict)), report::TextOrNull(gate), report::Text(r.why)});
  }
  if (!c.common.empty()) t.footnotes.push_back("Every figure: " + c.common + ".");
  if (!c.ignored.empty()) {
    t.footnotes.push_back(fmt::format("Paired across the keys ignored: {}.",
                                      fmt::format("{}", fmt::join(c.ignored, ", "))));
  }
  t.footnotes.push_back(
      fmt::format("Intervals: 95% bootstrap of the ratio of medians, {} resamples, seed {}.",
                  c.bootstrap.resamples, c.bootstrap.seed));
  for (const std::string& k : c.baseline_only) t.footnotes.push_back("Only in the baseline: " + k);
  for (const std::string& k : c.candidate_only) {
    t.footnotes.push_back("Only in the candidate: " + k);
  }
  for (const std::string& k : c.ambiguous) {
    t.footnotes.push_back("Not compared, held by more than one row of a side: " + k);
  }
  return t;
}

void WriteComparisonMarkdown(const Comparison& c, const std::string& baseline,
                             const std::string& candidate, std::ostream& out) {
  out << fmt::format("Baseline: {}\nCandidate: {}\n\n", baseline, candidate);
  const report::Table t = ComparisonTable(c, true);
  if (t.rows.empty()) {
    out << "No figure pairs: nothing to compare.\n";
  } else {
    report::WriteMarkdownTable(t, out);
  }
  out << "\n";
  for (const std::string& n : t.footnotes) out << "- " << n << "\n";
  if (c.gate_failed) out << "\nThe gate FAILED: a figure is worse past its line's limit.\n";
}

nlohmann::ordered_json ComparisonJson(const Comparison& c, const std::string& baseline,
                                      const std::string& candidate) {
  const report::Table t = ComparisonTable(c, false);
  nlohmann::ordered_json j;
  j["schema_version"] = kCompareSchemaVersion;
  j["baseline"] = baseline;
  j["candidate"] = candidate;
  j["seed"] = c.bootstrap.seed;
  j["resamples"] = c.bootstrap.resamples;
  j["ignored"] = c.ignored;
  j["common"] = c.common;
  j["figures"] = nlohmann::ordered_json::array();
  for (const report::Row& row : t.rows) j["figures"].push_back(report::RowObject(t, row));
  j["baseline_only"] = c.baseline_only;
  j["candidate_only"] = c.candidate_only;
  j["ambiguous"] = c.ambiguous;
  j["gate_failed"] = c.gate_failed;
  return j;
}

}  // namespace pipette::compare
