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

// Four significant digits, or a size ("190.7 MiB") for a figure in bytes (Row::unit).
const report::TextForm kFour{.real = "{:.4g}", .sizes = true};

}  // namespace

report::Table ComparisonTable(const Comparison& c) {
  report::Table t;
  t.name = "comparison";
  const auto left = report::Align::kLeft, right = report::Align::kRight;
  const auto text = report::ShownIn::kText, data = report::ShownIn::kData;
  // The columns people read (Markdown) and every column, typed (JSON, CSV, JSONL): shared where
  // they are the same; the text formats' change, interval and counts write several data columns
  // as one.
  t.columns = {{"figure", ColumnType::kText, "", left},
               {"key", ColumnType::kJson, "", left, {}, data},
               {"test", ColumnType::kText, "", left, {}, data},
               {"metric", ColumnType::kText, "", left},
               {"unit", ColumnType::kText, "", left},
               {"compared_as", ColumnType::kText, "", left, {}, data},
               {"baseline", ColumnType::kReal, "", right, kFour},
               {"candidate",
                ColumnType::kReal,
                "",
                right,
                {.real = "{:.4g}", .null = "missing", .sizes = true}},
               {"change", ColumnType::kText, "", right, {}, text},
               {"95% interval", ColumnType::kText, "", right, {}, text},
               {"n", ColumnType::kText, "", right, {}, text},
               {"verdict", ColumnType::kText, "", left, {}, text},
               {"gate", ColumnType::kText, "", left, {}, text},
               {"why", ColumnType::kText, "", left, {}, text},
               {"ratio", ColumnType::kReal, "", right, {}, data},
               {"difference", ColumnType::kReal, "", right, {}, data},
               {"ci_low", ColumnType::kReal, "", right, {}, data},
               {"ci_high", ColumnType::kReal, "", right, {}, data},
               {"baseline_n", ColumnType::kInteger, "", right, {}, data},
               {"candidate_n", ColumnType::kInteger, "", right, {}, data},
               {"baseline_cv", ColumnType::kReal, "", right, {}, data},
               {"candidate_cv", ColumnType::kReal, "", right, {}, data},
               {"verdict", ColumnType::kText, "", left, {}, data},
               {"why", ColumnType::kText, "", left, {}, data},
               {"missing", ColumnType::kText, "", left, {}, data},
               {"gate", ColumnType::kText, "", left, {}, data},
               {"gate_line", ColumnType::kInteger, "", right, {}, data},
               {"gate_failed", ColumnType::kBoolean, "", left, {}, data},
               {"gate_outcome", ColumnType::kText, "", left, {}, data},
               {"gate_inconclusive", ColumnType::kText, "", left, {}, data},
               {"untrusted", ColumnType::kText, "", left, {}, data},
               {"same_cells", ColumnType::kBoolean, "", left, {}, data}};
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
    std::string change, interval;
    if (have && r.of == Change::Of::kDifference) {
      change = fmt::format("{:+.4g}", r.difference);
      if (r.interval) {
        interval = fmt::format("[{:+.4g}, {:+.4g}]", r.interval->low, r.interval->high);
      }
    } else if (have && r.ratio) {
      change = fmt::format("×{:.4g}", *r.ratio);
      if (r.interval) interval = fmt::format("[{:.4g}, {:.4g}]", r.interval->low, r.interval->high);
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
           report::Text(change),
           report::Text(interval),
           report::Text(fmt::format("{}/{}", r.baseline_n, r.candidate_n)),
           report::Text(verdict),
           report::Text(gate),
           report::Text(f.untrusted.empty() ? r.why : r.why + "; untrusted: " + f.untrusted),
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
    t.rows.back().unit = f.unit;
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
  const report::Table t = ComparisonTable(c);
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
  const report::Table t = ComparisonTable(c);
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
