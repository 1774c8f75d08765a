// A selection's hard constraint (docs/running.md "Choosing a configuration"): one figure held
// against a bound, e.g. `peak_rss <= 1.5GiB`, `ttft@512 <= 800ms`, `tg128 >= 15 t/s`,
// `format_ok >= 0.95`. A pure parser: figures are resolved against a run's rows by select.h.
#pragma once

#include <string>
#include <string_view>

#include "pipette/metrics/figures.h"
#include "pipette/util/result.h"

namespace pipette::select {

struct Constraint {
  std::string figure;  // as written: a test (tg128), a metric (peak_rss), test.metric, test_metric
  enum class Op { kLe, kLt, kGe, kGt } op = Op::kLe;
  double bound = 0;  // in the figure's unit: bytes, ms, t/s, a fraction
  // What the bound's unit says the figure is: kBytes (B, KiB, MiB, GiB, kB, MB, GB), kTime (ms,
  // s), kRate (t/s), kFraction (%), kPlain (a bare number).
  enum class Kind { kPlain, kBytes, kTime, kRate, kFraction } kind = Kind::kPlain;
  std::string text;  // as written ("peak_rss <= 1.5GiB")
  std::string file;  // where it was written, for errors
  int line = 0, column = 0;
};

std::string OpText(Constraint::Op op);  // "<=", "<", ">=", ">"
// The unit the bound's kind says, as a row's unit: "bytes", "ms", "t/s", "fraction", "" (plain).
std::string UnitOf(Constraint::Kind k);
// Whether `value` meets the constraint.
bool Holds(const Constraint& c, double value);

// `text` as written at `file`:`line`:`column` (1-based, where the text starts). An error names the
// place of the part that is wrong, with the form expected (exit 2); so is a figure Pipette never
// reports (with the near name), a bound in another unit than every figure of the name, and a bound
// no value of the figure can meet (its range from its kind, metrics/figures.h: format_ok >= 1.5).
// `figures`: the figures a constraint may name (workload::Figures()); null only where none is
// at hand (config's own tests), which leaves the name and the bound's range unchecked.
Result<Constraint> ParseConstraint(std::string_view text, const std::string& file, int line,
                                   int column, const metrics::FigureCatalogue* figures);

}  // namespace pipette::select
