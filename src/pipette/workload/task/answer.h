// A generation task's answer (docs/tasks.md "Generation tasks"): the completion cut at the
// task's first stop sequence, an answer extracted from it by a regular expression (as
// lm-evaluation-harness's regex filter does), and an exact match against the item's target
// after both are normalised (as its exact_match metric does). Regular expressions are RE2's
// (linear time, no stack to overflow; Python's syntax for what both have, `(?s)` included).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/util/result.h"

namespace re2 {
class RE2;
}

namespace pipette::workload::task {

// The answer lm-evaluation-harness's regex filter falls back to when nothing matches.
inline constexpr const char* kInvalidAnswer = "[invalid]";

// A compiled pattern, shared by the definition's copies.
class Pattern {
 public:
  // An error (exit 2) names the pattern and RE2's complaint; the caller places it.
  static Result<Pattern> Compile(const std::string& text);
  const std::string& text() const { return text_; }
  const re2::RE2& re() const { return *re_; }

 private:
  std::string text_;
  std::shared_ptr<const re2::RE2> re_;
};

// One way of taking the answer out of a completion: every match of `pattern`, left to right,
// and the first or the last of them (lm-eval's group_select 0 or -1). A match's answer is its
// first capturing group when the pattern has one, the first non-empty group when it has several,
// the whole match when it has none; then white space is trimmed.
struct Extractor {
  std::string name;  // "strict" or "flexible": the metric is exact_match_<name>
  Pattern pattern;
  bool last = false;
};

struct AnswerRule {
  std::vector<Extractor> extract;  // at least one
  std::vector<Pattern> ignore;     // removed from answer and target alike, in order
  bool ignore_case = false;        // then both lower-cased (ASCII)
};

// The extractor names a definition may use, each a metric exact_match_<name>.
const std::vector<std::string>& ExtractorNames();

// `text` up to the first place any of `stops` begins (all of it when none occurs).
std::string CutAtStop(std::string_view text, const std::vector<std::string>& stops);

// The answer `e` takes out of `completion`, kInvalidAnswer when nothing matches.
std::string Extract(const Extractor& e, std::string_view completion);

// `s` with every `ignore` pattern's matches removed, then lower-cased if asked.
std::string Normalise(const AnswerRule& rule, std::string s);

}  // namespace pipette::workload::task
