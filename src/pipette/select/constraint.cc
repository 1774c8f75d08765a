#include "pipette/select/constraint.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>

#include "pipette/util/strings.h"

namespace pipette::select {
namespace {

constexpr const char* kForm =
    "expected 'FIGURE OP BOUND', OP one of <= < >= >, e.g. peak_rss <= 1.5GiB, ttft@512 <= "
    "800ms, tg128 >= 15 t/s, format_ok >= 0.95";

bool NameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '@' ||
         c == '+' || c == '-';
}

}  // namespace

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
                                   int column) {
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
  return c;
}

}  // namespace pipette::select
