#include "pipette/compare/view.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pipette/report/markdown.h"
#include "pipette/util/strings.h"

namespace pipette::compare {

using report::Column;
using report::ColumnType;

namespace {

std::string ComparedAs(const Change& c) {
  if (c.of == Change::Of::kDifference) return "paired difference";
  return c.measured_once ? "single values" : "ratio of medians";
}

// Four significant digits, or a size ("190.7 MiB") for a figure in bytes.
std::string Num(double v, const std::string& unit) {
  return unit == "bytes" ? FormatBytes(v) : fmt::format("{:.4g}", v);
}

}  // namespace

report::Table ComparisonTable(const Comparison& c, bool for_text) {
  report::Table t;
  t.name = "comparison";
  const auto left = report::Align::kLeft, right = report::Align::kRight;
  if (for_text) {
    for (const char* name : {"figure", "metric", "unit"}) {
      t.columns.push_back({name, ColumnType::kText, "", left});
    }
    for (const char* name : {"baseline", "candidate", "change", "95% interval", "n"}) {
      t.columns.push_back({name, ColumnType::kText, "", right});
    }
    for (const char* name : {"verdict", "gate", "why"}) {
      t.columns.push_back({name, ColumnType::kText, "", left});
    }
  } else {
    t.columns = {{"figure", ColumnType::kText, "", left},
                 {"key", ColumnType::kJson, "", left},
                 {"test", ColumnType::kText, "", left},
                 {"metric", ColumnType::kText, "", left},
                 {"unit", ColumnType::kText, "", left},
                 {"compared_as", ColumnType::kText, "", left},
                 {"baseline", ColumnType::kReal, "", right},
                 {"candidate", ColumnType::kReal, "", right},
                 {"ratio", ColumnType::kReal, "", right},
                 {"difference", ColumnType::kReal, "", right},
                 {"ci_low", ColumnType::kReal, "", right},
                 {"ci_high", ColumnType::kReal, "", right},
                 {"baseline_n", ColumnType::kInteger, "", right},
                 {"candidate_n", ColumnType::kInteger, "", right},
                 {"baseline_cv", ColumnType::kReal, "", right},
                 {"candidate_cv", ColumnType::kReal, "", right},
                 {"verdict", ColumnType::kText, "", left},
                 {"why", ColumnType::kText, "", left},
                 {"missing", ColumnType::kText, "", left},
                 {"gate", ColumnType::kText, "", left},
                 {"gate_line", ColumnType::kInteger, "", right},
                 {"gate_failed", ColumnType::kBoolean, "", left},
                 {"gate_outcome", ColumnType::kText, "", left},
                 {"gate_inconclusive", ColumnType::kText, "", left},
                 {"untrusted", ColumnType::kText, "", left},
                 {"same_cells", ColumnType::kBoolean, "", left}};
  }
  for (const FigureComparison& f : c.figures) {
    const Change& r = f.change;
    const bool have = f.missing.empty();
    const std::string outcome = !f.gate                        ? ""
                                : f.gate_failed                ? "failed"
                                : !f.gate_inconclusive.empty() ? "inconclusive"
                                                               : "passed";
    std::string gate;
    if (f.gate) {
      gate = fmt::format("{} {}", outcome == "failed" ? "FAILED" : outcome, f.gate->text);
    }
    // The verdict as people read it: marked when a side was measured under a warning.
    std::string verdict = have ? VerdictName(r.verdict) : "missing";
    if (!f.untrusted.empty()) verdict += " (untrusted)";
    if (for_text) {
      std::string change, interval;
      if (have && r.of == Change::Of::kDifference) {
        change = fmt::format("{:+.4g}", r.difference);
        if (r.interval)
          interval = fmt::format("[{:+.4g}, {:+.4g}]", r.interval->low, r.interval->high);
      } else if (have && r.ratio) {
        change = fmt::format("×{:.4g}", *r.ratio);
        if (r.interval)
          interval = fmt::format("[{:.4g}, {:.4g}]", r.interval->low, r.interval->high);
      }
      t.Add({report::Text(f.label), report::Text(f.metric), report::Text(f.unit),
             report::Text(r.baseline_n ? Num(r.baseline, f.unit) : ""),
             report::Text(have ? Num(r.candidate, f.unit) : "missing"), report::Text(change),
             report::Text(interval),
             report::Text(fmt::format("{}/{}", r.baseline_n, r.candidate_n)), report::Text(verdict),
             report::Text(gate),
             report::Text(f.untrusted.empty() ? r.why : r.why + "; untrusted: " + f.untrusted)});
      continue;
    }
    nlohmann::ordered_json key = nlohmann::ordered_json::object();
    for (const auto& [name, value] : f.key) key[name] = value;
    auto real = [&](double v) { return have ? report::Real(v) : report::Null(); };
    t.Add({report::Text(f.label),
           report::Json(key),
           report::Text(f.test),
           report::Text(f.metric),
           report::Text(f.unit),
           report::Text(ComparedAs(r)),
           r.baseline_n ? report::Real(r.baseline) : report::Null(),
           real(r.candidate),
           have ? report::RealOrNull(r.ratio) : report::Null(),
           real(r.difference),
           r.interval ? report::Real(r.interval->low) : report::Null(),
           r.interval ? report::Real(r.interval->high) : report::Null(),
           report::Integer(int64_t(r.baseline_n)),
           report::Integer(int64_t(r.candidate_n)),
           r.of == Change::Of::kRatio && have ? report::Real(r.baseline_cv) : report::Null(),
           r.of == Change::Of::kRatio && have ? report::Real(r.candidate_cv) : report::Null(),
           report::Text(have ? VerdictName(r.verdict) : "missing"),
           report::Text(r.why),
           report::TextOrNull(f.missing),
           report::TextOrNull(f.gate ? f.gate->text : ""),
           f.gate ? report::Integer(f.gate->line) : report::Null(),
           f.gate ? report::Boolean(f.gate_failed) : report::Null(),
           report::TextOrNull(outcome),
           report::TextOrNull(f.gate_inconclusive),
           report::TextOrNull(f.untrusted),
           report::Boolean(f.same_cells)});
  }
  if (c.same_cells > 0) {
    t.footnotes.push_back(fmt::format(
        "The same cells on both sides: {} of the {} figures compare a cell's samples with "
        "themselves (one run compared with itself), so they cannot change and decide no gate "
        "line. Compare another run, or two configurations of one run (--baseline-only KEY=A "
        "--candidate-only KEY=B --ignore KEY).",
        c.same_cells, c.figures.size()));
  }
  if (c.interleaving) t.footnotes.push_back(c.interleaving->note);
  if (!c.common.empty()) t.footnotes.push_back("Every figure: " + c.common + ".");
  if (!c.ignored.empty()) {
    t.footnotes.push_back(fmt::format("Paired across the keys ignored: {}.",
                                      fmt::format("{}", fmt::join(c.ignored, ", "))));
  }
  t.footnotes.push_back(fmt::format(
      "Speed and memory: the ratio of medians with a 95% bootstrap interval; quality: the paired "
      "difference over items or chunks with a 95% paired bootstrap interval; {} resamples, seed "
      "{}.",
      c.bootstrap.resamples, c.bootstrap.seed));
  for (const std::string& k : c.baseline_only) t.footnotes.push_back("Only in the baseline: " + k);
  for (const std::string& k : c.candidate_only) {
    t.footnotes.push_back("Only in the candidate: " + k);
  }
  for (const std::string& k : c.not_compared) t.footnotes.push_back("Not compared: " + k);
  return t;
}

void WriteComparisonMarkdown(const Comparison& c, const std::string& baseline,
                             const std::string& candidate, std::ostream& out) {
  out << fmt::format("Baseline: {}\n\nCandidate: {}\n\n", MarkdownLine(baseline),
                     MarkdownLine(candidate));
  const report::Table t = ComparisonTable(c, true);
  if (t.rows.empty()) {
    out << "No figure pairs: nothing to compare.\n";
  } else {
    report::WriteMarkdownTable(t, out);
  }
  out << "\n";
  for (const std::string& n : t.footnotes) out << "- " << MarkdownLine(n) << "\n";
  const std::optional<GateOutcome> outcome = OutcomeOf(c);
  if (!outcome) return;
  std::vector<std::string> undecided;
  for (const FigureComparison& f : c.figures) {
    if (f.gate && !f.gate_inconclusive.empty()) {
      undecided.push_back(
          fmt::format("{} {} ({}): {}", f.label, f.metric, f.gate->text, f.gate_inconclusive));
    }
  }
  if (*outcome == GateOutcome::kFailed) {
    out << "\nThe gate FAILED: a figure it covers is worse past its line's limit, or missing.\n";
  } else if (*outcome == GateOutcome::kInconclusive) {
    out << fmt::format(
        "\nThe gate is INCONCLUSIVE: no line failed, but the data cannot decide {} of its "
        "figures.\n",
        undecided.size());
  } else {
    out << "\nThe gate passed: every line held.\n";
  }
  if (!undecided.empty()) {
    out << "\nUndecided:\n\n";
    for (const std::string& u : undecided) out << "- " << MarkdownLine(u) << "\n";
  }
}

nlohmann::ordered_json ComparisonJson(const Comparison& c, const std::string& baseline,
                                      const std::string& candidate) {
  const report::Table t = ComparisonTable(c, false);
  nlohmann::ordered_json j;
  j["schema"] = "pipette.compare";
  j["schema_version"] = kCompareSchemaVersion;
  j["baseline"] = baseline;
  j["candidate"] = candidate;
  j["seed"] = c.bootstrap.seed;
  j["resamples"] = c.bootstrap.resamples;
  j["ignored"] = c.ignored;
  j["common"] = c.common;
  if (c.interleaving) {
    j["interleaving"] = {{"same_run", c.interleaving->same_run},
                         {"interleaved", c.interleaving->interleaved},
                         {"note", c.interleaving->note}};
  } else {
    j["interleaving"] = nullptr;
  }
  j["figures"] = nlohmann::ordered_json::array();
  for (const report::Row& row : t.rows) j["figures"].push_back(report::RowObject(t, row));
  j["baseline_only"] = c.baseline_only;
  j["candidate_only"] = c.candidate_only;
  j["not_compared"] = c.not_compared;
  j["gate_failed"] = c.gate_failed;
  const std::optional<GateOutcome> outcome = OutcomeOf(c);
  j["gate"] = outcome ? nlohmann::ordered_json(GateOutcomeName(*outcome)) : nullptr;
  j["gate_inconclusive"] = c.gate_inconclusive;
  j["same_cells"] = c.same_cells;
  return j;
}

}  // namespace pipette::compare
