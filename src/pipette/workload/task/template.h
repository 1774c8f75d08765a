// The text templates of a task definition (docs/tasks.md "Templates"): literal text with
// `{name}` or `{name|filter|filter}` in it, `{{` and `}}` for literal braces. A name is a field
// of the item's row by its dotted path (`choices.text`) or a variable the task gives (`choice`,
// `letter`); filters are named (TemplateFilters) or defined by the task (`filters:`). Parsed once
// when the definition is read, so a typo is an error at the definition's line, then rendered
// per item.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipette/util/result.h"

namespace pipette::workload::task {

// One rewrite of a filter the task defines: a literal replacement or a regular expression's.
struct Rewrite {
  std::string find{}, with{};
  bool regex = false;
  bool strip = false;  // the step is `strip` (trims white space)
};
using DefinedFilters = std::map<std::string, std::vector<Rewrite>>;

class Template {
 public:
  // `text` parsed; `filters`: the task's own filters, which the template may name beside the
  // built-in ones. An error (exit code 2) names the problem ("unknown filter 'strp' in
  // '{question|strp}'"); the caller places it.
  static Result<Template> Parse(const std::string& text, const DefinedFilters& filters);
  Template() = default;

  // The text for `vars` (a JSON object: the row's fields and the task's variables). A name that
  // is absent, or a value that is not text, a number or (through a filter) a list, is an error
  // naming it.
  Result<std::string> Render(const nlohmann::json& vars) const;
  // The names it reads (the first segment of each path), in order.
  std::vector<std::string> Names() const;
  const std::string& text() const { return text_; }
  bool empty() const { return text_.empty(); }

 private:
  struct Part {
    std::string literal{};               // when path is empty
    std::vector<std::string> path{};     // a name's dotted path
    std::vector<std::string> filters{};  // in order
  };
  std::string text_;
  std::vector<Part> parts_;
  DefinedFilters defined_;  // the task's filters it names, copied
};

// The built-in filters: strip, lower, upper, capitalize (Python's str.capitalize, ASCII),
// words (underscores to spaces), lettered (a list as "A. x\nB. y"), lines (a list as "x\ny"),
// json.
const std::vector<std::string>& TemplateFilters();

// "A", "B", ... "Z" for choice 0, 1, ... 25 (a task's items have at most 26 choices).
std::string Letter(size_t index);

}  // namespace pipette::workload::task
