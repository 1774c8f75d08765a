#include "pipette/select/constraint.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <set>

#include "pipette/metrics/figures.h"
#include "pipette/util/strings.h"

namespace pipette::select {
namespace {

constexpr const char* kForm =
    "expected 'FIGURE OP BOUND', OP one of <= < >= >, e.g. peak_rss <= 1.5GiB, ttft@512 <= "
    "800ms, tg128 >= 15 t/s, format_ok >= 0.95";

bool NameChar(char c) {
  // ':' for a standard task's figure (task:mmlu_5shot, task:gsm8k.exact_match_strict).
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '@' ||
         c == '+' || c == '-' || c == ':';
}

// Whether a value `v` of a figure of `kind` can hold against `op` `bound` (in the figure's unit).
bool Satisfiable(metrics::ValueKind kind, Constraint::Op op, double bound) {
  const metrics::ValueRange r = metrics::RangeOf(kind);
  switch (op) {
    case Constraint::Op::kGe:
      return bound <= r.hi;
    case Constraint::Op::kGt:
      return bound < r.hi;
    case Constraint::Op::kLe:
      return bound >= r.lo;
    case Constraint::Op::kLt:
      return bound > r.lo;
  }
  return true;
}

// The figure a parsed constraint names is one Pipette reports (metrics/figures.h), in the bound's
// unit, and the bound is one some value of it can meet; else an error at the figure's or the
// bound's place (exit 2).
Status CheckFigure(const Constraint& c, size_t name_at, size_t number_at,
                   const metrics::FigureCatalogue& figures) {
  auto at = [&](size_t i, const std::string& problem) -> Error {
    return ErrorAt({c.file, c.line, c.column + static_cast<int>(i)},
                   fmt::format("'{}': {}", c.text, problem), 2);
  };
  const std::vector<const metrics::FigureDef*> specs = figures.Named(c.figure);
  if (specs.empty()) {
    return at(name_at, fmt::format("'{}' is no figure Pipette reports (docs/report-schema.md: a "
                                   "test, a metric, or test.metric){}",
                                   c.figure, DidYouMean(c.figure, figures.NamesLike(c.figure))));
  }
  std::vector<const metrics::FigureDef*> in_unit;
  std::set<std::string> units;
  for (const metrics::FigureDef* s : specs) {
    units.insert(s->unit.empty() ? "no unit" : s->unit);
    const bool percent =
        c.kind == Constraint::Kind::kFraction && (s->unit == "%" || s->unit == "probability");
    if (c.kind == Constraint::Kind::kPlain || s->unit == UnitOf(c.kind) || percent) {
      in_unit.push_back(s);
    }
  }
  if (in_unit.empty()) {
    return at(number_at, fmt::format("{} is in {}, the bound in {}", c.figure,
                                     fmt::join(units, " or "), UnitOf(c.kind)));
  }
  for (const metrics::FigureDef* s : in_unit) {
    // A bound in % of a figure in % ("decay <= 10%") compares as the figure's own number.
    const double bound =
        c.kind == Constraint::Kind::kFraction && s->unit == "%" ? c.bound * 100 : c.bound;
    if (Satisfiable(s->values, c.op, bound)) return {};
  }
  return at(number_at, fmt::format("no value of {} can be {} that: it is {}", c.figure,
                                   OpText(c.op), metrics::KindText(in_unit[0]->values)));
}

}  // namespace

std::string UnitOf(Constraint::Kind k) {
  switch (k) {
    case Constraint::Kind::kBytes:
      return "bytes";
    case Constraint::Kind::kTime:
      return "ms";
    case Constraint::Kind::kRate:
      return "t/s";
    case Constraint::Kind::kFraction:
      return "fraction";
    case Constraint::Kind::kPlain:
      return "";
  }
  return "";
}

std::string OpText(Constraint::Op op) {
  switch (op) {
    case Constraint::Op::kLe:
      return "<=";
    case Constraint::Op::kLt:
      return "<";
    case Constraint::Op::kGe:
      return ">=";
    case Constraint::Op::kGt:
      return ">";
  }
  return "?";
}

bool Holds(const Constraint& c, double value) {
  switch (c.op) {
    case Constraint::Op::kLe:
      return value <= c.bound;
    case Constraint::Op::kLt:
      return value < c.bound;
    case Constraint::Op::kGe:
      return value >= c.bound;
    case Constraint::Op::kGt:
      return value > c.bound;
  }
  return false;
}

Result<Constraint> ParseConstraint(std::string_view text, const std::string& file, int line,
                                   int column, const metrics::FigureCatalogue* figures) {
  Constraint c;
  c.text = std::string(text);
  c.file = file;
  c.line = line;
  c.column = column;
  auto fail = [&](size_t at, const std::string& problem) -> Error {
    return ErrorAt({file, line, column + static_cast<int>(at)}, problem + ": " + kForm, 2);
  };
  size_t i = 0;
  auto skip = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  skip();
  const size_t name_at = i;
  while (i < text.size() && NameChar(text[i])) ++i;
  c.figure = std::string(text.substr(name_at, i - name_at));
  if (c.figure.empty()) return fail(name_at, "no figure's name");
  skip();
  const size_t op_at = i;
  if (text.substr(i, 2) == "<=") {
    c.op = Constraint::Op::kLe;
    i += 2;
  } else if (text.substr(i, 2) == ">=") {
    c.op = Constraint::Op::kGe;
    i += 2;
  } else if (text.substr(i, 1) == "<") {
    c.op = Constraint::Op::kLt;
    i += 1;
  } else if (text.substr(i, 1) == ">") {
    c.op = Constraint::Op::kGt;
    i += 1;
  } else {
    return fail(op_at, i < text.size() ? fmt::format("'{}' is not a comparison", text.substr(i, 2))
                                       : std::string("no comparison after the figure"));
  }
  skip();
  const size_t number_at = i;
  double number = 0;
  const auto [ptr, ec] = std::from_chars(text.data() + i, text.data() + text.size(), number);
  if (ec != std::errc() || !std::isfinite(number)) {
    return fail(number_at, i < text.size() ? fmt::format("'{}' is not a number", text.substr(i))
                                           : std::string("no bound after the comparison"));
  }
  if (number < 0) return fail(number_at, "a bound is not negative");
  i = static_cast<size_t>(ptr - text.data());
  skip();
  const size_t unit_at = i;
  std::string_view unit = text.substr(i);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back()))) {
    unit.remove_suffix(1);
  }
  const std::string lower = ToLower(unit);
  if (unit.empty()) {
    c.kind = Constraint::Kind::kPlain;
    c.bound = number;
  } else if (lower == "ms") {
    c.kind = Constraint::Kind::kTime;
    c.bound = number;
  } else if (lower == "s") {
    c.kind = Constraint::Kind::kTime;
    c.bound = number * 1000;
  } else if (lower == "t/s" || lower == "tok/s" || lower == "tokens/s") {
    c.kind = Constraint::Kind::kRate;
    c.bound = number;
  } else if (unit == "%") {
    c.kind = Constraint::Kind::kFraction;
    c.bound = number / 100;
  } else if (auto bytes = ParseBytes(fmt::format(
                 "{}{}", text.substr(number_at, ptr - text.data() - number_at), unit))) {
    c.kind = Constraint::Kind::kBytes;
    c.bound = static_cast<double>(*bytes);
  } else {
    return fail(unit_at,
                fmt::format("'{}' is not a unit (B, KiB, MiB, GiB, MB, GB, ms, s, t/s, %)", unit));
  }
  if (figures) {
    if (auto st = CheckFigure(c, name_at, number_at, *figures); !st) return st.error();
  }
  return c;
}

}  // namespace pipette::select
