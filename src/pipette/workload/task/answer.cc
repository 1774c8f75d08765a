#include "pipette/workload/task/answer.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>

namespace pipette::workload::task {
namespace {

std::string Trimmed(std::string_view s) {
  const char* ws = " \t\n\r\f\v";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return "";
  return std::string(s.substr(b, s.find_last_not_of(ws) - b + 1));
}

}  // namespace

Result<Pattern> Pattern::Compile(const std::string& text) {
  RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_shared<const re2::RE2>(text, options);
  if (!re->ok()) {
    return InputError(
        fmt::format("the regular expression '{}' is not valid: {}", text, re->error()));
  }
  Pattern p;
  p.text_ = text;
  p.re_ = std::move(re);
  return p;
}

const std::vector<std::string>& ExtractorNames() {
  static const std::vector<std::string> names = {"strict", "flexible"};
  return names;
}

std::string CutAtStop(std::string_view text, const std::vector<std::string>& stops) {
  size_t cut = text.size();
  for (const std::string& s : stops) {
    if (s.empty()) continue;
    cut = std::min(cut, text.find(s));
  }
  return std::string(text.substr(0, cut));
}

std::string Extract(const Extractor& e, std::string_view completion) {
  const re2::RE2& re = e.pattern.re();
  const int groups = re.NumberOfCapturingGroups();
  std::vector<re2::StringPiece> sub(size_t(groups) + 1);
  std::optional<std::string> found;
  size_t at = 0;
  const re2::StringPiece text(completion.data(), completion.size());
  while (at <= text.size() &&
         re.Match(text, at, text.size(), RE2::UNANCHORED, sub.data(), groups + 1)) {
    std::string answer;
    bool any = true;
    if (groups == 0) {
      answer = std::string(sub[0]);
    } else if (groups == 1) {
      answer = sub[1].data() ? std::string(sub[1]) : "";
    } else {
      any = false;
      for (int g = 1; g <= groups && !any; ++g) {
        if (!sub[size_t(g)].empty()) {
          answer = std::string(sub[size_t(g)]);
          any = true;
        }
      }
    }
    found = any ? Trimmed(answer) : std::string(kInvalidAnswer);
    if (!e.last) break;
    const size_t end = size_t(sub[0].data() - text.data()) + sub[0].size();
    at = sub[0].empty() ? end + 1 : end;  // an empty match moves on one byte
  }
  return found.value_or(kInvalidAnswer);
}

std::string Normalise(const AnswerRule& rule, std::string s) {
  for (const Pattern& p : rule.ignore) RE2::GlobalReplace(&s, p.re(), "");
  if (rule.ignore_case) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) {
      return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : char(c);
    });
  }
  return s;
}

}  // namespace pipette::workload::task
