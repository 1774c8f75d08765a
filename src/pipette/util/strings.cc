#include "pipette/util/strings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace pipette {

std::string_view Trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  const size_t begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(kSpace) - begin + 1);
}

size_t EditDistance(std::string_view a, std::string_view b) {
  // Optimal string alignment: insertions, deletions, substitutions and adjacent swaps cost 1.
  // Three rows (the swap looks two back), allocated once: |a| x |b| steps, |b| words of memory.
  std::vector<size_t> two_back(b.size() + 1), back(b.size() + 1), row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) back[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({back[j] + 1, row[j - 1] + 1, back[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        row[j] = std::min(row[j], two_back[j - 2] + 1);
      }
    }
    std::swap(two_back, back);
    std::swap(back, row);
  }
  return back[b.size()];
}

std::optional<std::string> NearestName(std::string_view word,
                                       const std::vector<std::string>& candidates) {
  // A typo: at most a third of the word changed (and at least one edit allowed).
  const size_t allowed = std::max<size_t>(1, word.size() / 3);
  std::optional<std::string> best;
  size_t best_d = 0;
  for (const std::string& c : candidates) {
    // The distance is at least the difference in length: a candidate too far in length is no
    // typo of the word, and a long word from outside (a 64 KiB key) costs no |word| x |c| steps.
    const size_t length_gap =
        c.size() > word.size() ? c.size() - word.size() : word.size() - c.size();
    if (length_gap > allowed) continue;
    const size_t d = EditDistance(word, c);
    if (!best || d < best_d) {
      best = c;
      best_d = d;
    }
  }
  if (best && best_d <= allowed) return best;
  return std::nullopt;
}

std::string OneOf(const std::vector<std::string>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += i + 1 == words.size() ? " or " : ", ";
    out += words[i];
  }
  return out;
}

std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  auto n = NearestName(word, candidates);
  return n ? fmt::format(" (did you mean '{}'?)", *n) : std::string();
}

namespace {

std::string MarkdownEscaped(std::string_view text, std::string_view escape) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\r' || c == '\n') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      out += ' ';
      continue;
    }
    if (escape.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string MarkdownCell(std::string_view text) { return MarkdownEscaped(text, "|\\"); }

std::string MarkdownLine(std::string_view text) { return MarkdownEscaped(text, "|"); }

std::string FormatBytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (std::fabs(bytes) >= 1024.0 && u < 4) {
    bytes /= 1024.0;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.2f} {}", bytes, units[u]);
}

std::optional<int64_t> ParseBytes(std::string_view text) {
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr == text.data() || !(value >= 0)) return std::nullopt;
  std::string unit = ToLower(std::string_view(ptr, text.data() + text.size() - ptr));
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  static const std::pair<const char*, double> kUnits[] = {
      {"", 1},         {"b", 1},    {"kib", 0x1p10}, {"mib", 0x1p20}, {"gib", 0x1p30},
      {"tib", 0x1p40}, {"kb", 1e3}, {"mb", 1e6},     {"gb", 1e9},     {"tb", 1e12}};
  for (const auto& [name, scale] : kUnits) {
    if (unit != name) continue;
    const double bytes = value * scale;
    if (bytes > 0x1p62) return std::nullopt;
    return static_cast<int64_t>(std::llround(bytes));
  }
  return std::nullopt;
}

std::string FormatDuration(double seconds) {
  if (seconds < 60) return fmt::format("{:.1f}s", seconds);
  const long total = std::lround(seconds);
  if (total < 3600) return fmt::format("{}m {:02}s", total / 60, total % 60);
  return fmt::format("{}h {:02}m", total / 3600, (total % 3600) / 60);
}

std::string ToLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace pipette
