#include "pipette/compare/gate.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>

#include "pipette/util/strings.h"

namespace pipette::compare {
namespace {

constexpr const char* kForm =
    "expected 'FIGURE: CHANGE', the change one of -3%, +5%, -1 point, +0.01 or -0";

bool FigureName(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '@' &&
        c != '+' && c != '-' && c != ':') {
      return false;
    }
  }
  return true;
}

}  // namespace

Result<std::vector<GateLine>> ParseGate(std::string_view text, const std::string& file) {
  std::vector<GateLine> out;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 BOM
  int number = 0;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    std::string_view raw = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    const std::string_view line = raw.substr(0, raw.find('#'));
    if (Trim(line).empty()) {
      if (end == text.size()) break;
      continue;
    }
    auto fail = [&](size_t at, const std::string& problem) -> Error {
      return ErrorAt({file, number, static_cast<int>(at) + 1}, problem + ": " + kForm, 2);
    };
    // The last ':' ends the figure: a task's figure has one of its own (task:mmlu_5shot.acc).
    const size_t colon = line.rfind(':');
    const size_t name_at = line.find_first_not_of(" \t");
    if (colon == std::string_view::npos) return fail(name_at, "no ':' after the figure");
    GateLine g;
    g.line = number;
    g.figure = std::string(Trim(line.substr(0, colon)));
    if (!FigureName(g.figure)) {
      return fail(name_at, fmt::format("'{}' is not a figure's name", g.figure));
    }
    const size_t change_at = line.find_first_not_of(" \t", colon + 1);
    if (change_at == std::string_view::npos) return fail(colon + 1, "no change after ':'");
    std::string_view change = Trim(line.substr(change_at));
    if (change.empty()) return fail(colon + 1, "no change after ':'");  // only white space (\v)
    g.text = std::string(change);
    g.change_column = static_cast<int>(change_at) + 1;
    if (change.front() != '+' && change.front() != '-') {
      return fail(change_at, fmt::format("'{}' has no sign (+ or -)", change));
    }
    g.negative = change.front() == '-';
    std::string_view rest = change.substr(1);
    double magnitude = 0;
    const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), magnitude);
    if (ec != std::errc() || !std::isfinite(magnitude) || magnitude < 0) {
      return fail(change_at + 1, fmt::format("'{}' is not a number", rest));
    }
    const std::string_view unit = Trim(rest.substr(static_cast<size_t>(ptr - rest.data())));
    if (unit == "%") {
      g.kind = GateLine::Kind::kRelative;
      magnitude /= 100.0;
    } else if (unit == "point" || unit == "points") {
      g.kind = GateLine::Kind::kAbsolute;
      g.point = true;
      magnitude /= 100.0;  // a percentage point of a proportion
    } else if (unit.empty()) {
      g.kind = GateLine::Kind::kAbsolute;
    } else {
      return fail(static_cast<size_t>(unit.data() - line.data()),
                  fmt::format("'{}' is not a unit of change (%, point; a change in the "
                              "figure's own unit is a plain number: -2, not -2 {})",
                              unit, unit));
    }
    g.limit = g.negative ? -magnitude : magnitude;
    for (const GateLine& earlier : out) {
      if (earlier.figure == g.figure) {
        return fail(name_at,
                    fmt::format("'{}' has a line already (line {})", g.figure, earlier.line));
      }
    }
    out.push_back(std::move(g));
    if (end == text.size()) break;
  }
  if (out.empty()) return ErrorAt({file, 0, 0}, std::string("the gate has no line: ") + kForm, 2);
  return out;
}

bool PastLimit(const GateLine& line, double baseline, double candidate) {
  double change = 0;
  if (line.kind == GateLine::Kind::kRelative) {
    if (baseline == 0) return candidate != 0 && ((candidate < 0) == line.negative);
    change = candidate / baseline - 1.0;
  } else {
    change = candidate - baseline;
  }
  // A tolerance for the decimal fractions of the limit itself ("-3%": a change of -0.03 exactly is
  // within it).
  constexpr double kEps = 1e-12;
  return line.negative ? change < line.limit - kEps : change > line.limit + kEps;
}

}  // namespace pipette::compare
