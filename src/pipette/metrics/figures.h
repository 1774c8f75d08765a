// Every figure Pipette reports, by test and metric, with its unit and its kind
// (docs/report-schema.md "results"): what a figure's name in a selection constraint may name, and
// which values the figure can take at all. A workload that adds a figure adds its line here;
// figures_test.cc holds the catalogue against the rows of a real report.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pipette::metrics {

// What a figure is, which bounds the values it can take (RangeOf).
enum class FigureKind {
  kProportion,   // a share of items or positions, or a probability: 0 to 1
  kAmount,       // a size, time, rate, count, energy or divergence: 0 or more
  kPercentDrop,  // a fall in % of where it started (sustained decay): at most 100, below 0 a rise
  kPerplexity,   // exp(mean NLL): 1 or more
  kSigned,       // a difference or a temperature: either side of 0
};

// The closed range of values a figure of the kind can take, in its unit.
struct ValueRange {
  double lo, hi;
};
ValueRange RangeOf(FigureKind kind);
// "a proportion (0 to 1)", "a non-negative amount" ...: for messages.
std::string KindText(FigureKind kind);

struct FigureSpec {
  // A test's name, or a family of them: "pp<N>", "tg<N>", "ttft@<P>", "e2e@<P>+<N>",
  // "sustained<N>".
  std::string test;
  std::string metric;
  std::string unit;  // as the rows give it ("" for none)
  FigureKind kind = FigureKind::kAmount;
};

// The catalogue, in report order.
const std::vector<FigureSpec>& KnownFigures();

// Whether `test` is the spec's test, or one of its family.
bool TestOf(const FigureSpec& spec, std::string_view test);

// The specs a figure's name as people write it names (compare::FigureNameMatch's forms: test.metric
// or test_metric, a metric, a test for its headline figure), the most specific form only; empty
// for a name Pipette never reports.
std::vector<const FigureSpec*> FiguresNamed(std::string_view name);

// The names near `name` a figure can be given, for a "did you mean": every metric, every test of
// one name with its metrics, and the metrics of the test `name` starts with ("tg128.").
std::vector<std::string> FigureNamesLike(std::string_view name);

}  // namespace pipette::metrics
