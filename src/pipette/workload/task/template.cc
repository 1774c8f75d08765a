#include "pipette/workload/task/template.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <regex>

#include "pipette/util/strings.h"

namespace pipette::workload::task {
namespace {

using nlohmann::json;

constexpr size_t kMaxRegexBytes = 4096;

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '@';
}

std::string StripSpace(const std::string& s) { return std::string(Trim(s)); }

std::vector<std::string> SplitOn(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (c == sep) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

// A number as Python's str() of a JSON number would print an integer; others as JSON does.
std::string ScalarText(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  return v.dump();
}

std::string Describe(const json& v) {
  if (v.is_array()) return "a list";
  if (v.is_object()) return "a mapping";
  if (v.is_null()) return "null";
  return "a value";
}

std::string ReplaceAll(std::string s, const std::string& find, const std::string& with) {
  if (find.empty()) return s;
  size_t at = 0;
  while ((at = s.find(find, at)) != std::string::npos) {
    s.replace(at, find.size(), with);
    at += with.size();
  }
  return s;
}

}  // namespace

const std::vector<std::string>& TemplateFilters() {
  static const std::vector<std::string> kAll = {"strip", "lower",    "upper", "capitalize",
                                                "words", "lettered", "lines", "json"};
  return kAll;
}

std::string Letter(size_t index) {
  return index < 26 ? std::string(1, char('A' + index)) : std::string("?");
}

Result<Template> Template::Parse(const std::string& text, const DefinedFilters& filters) {
  Template t;
  t.text_ = text;
  std::string literal;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '}') {
      if (i + 1 < text.size() && text[i + 1] == '}') {
        literal += '}';
        ++i;
        continue;
      }
      return InputError(fmt::format("a lone '}}' at offset {} (write '}}}}' for a brace)", i));
    }
    if (c != '{') {
      literal += c;
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '{') {
      literal += '{';
      ++i;
      continue;
    }
    const size_t close = text.find('}', i);
    if (close == std::string::npos) {
      return InputError(
          fmt::format("'{{' at offset {} is not closed (write '{{{{' for a brace)", i));
    }
    const std::string inner = text.substr(i + 1, close - i - 1);
    std::vector<std::string> pieces = SplitOn(inner, '|');
    Part part;
    const std::string name = StripSpace(pieces.front());
    if (name.empty() || !std::all_of(name.begin(), name.end(), IsNameChar) || name.front() == '.' ||
        name.back() == '.' || name.find("..") != std::string::npos) {
      return InputError(
          fmt::format("'{{{}}}' does not name a field (a name such as "
                      "{{question}} or {{choices.text}}, then filters: "
                      "{{subject|words}})",
                      inner));
    }
    part.path = SplitOn(name, '.');
    for (size_t f = 1; f < pieces.size(); ++f) {
      const std::string filter = StripSpace(pieces[f]);
      const auto& builtin = TemplateFilters();
      if (std::find(builtin.begin(), builtin.end(), filter) != builtin.end()) {
        part.filters.push_back(filter);
      } else if (auto it = filters.find(filter); it != filters.end()) {
        part.filters.push_back(filter);
        t.defined_.emplace(it->first, it->second);
      } else {
        return InputError(
            fmt::format("unknown filter '{}' in '{{{}}}' (built in: {}; or one the "
                        "task defines under filters:)",
                        filter, inner, fmt::join(builtin, ", ")));
      }
    }
    if (!literal.empty()) t.parts_.push_back({.literal = std::move(literal)});
    literal.clear();
    t.parts_.push_back(std::move(part));
    i = close;
  }
  if (!literal.empty()) t.parts_.push_back({.literal = std::move(literal)});
  return t;
}

std::vector<std::string> Template::Names() const {
  std::vector<std::string> names;
  for (const Part& p : parts_) {
    if (!p.path.empty()) names.push_back(p.path.front());
  }
  return names;
}

Result<std::string> Template::Render(const json& vars) const {
  std::string out;
  for (const Part& p : parts_) {
    if (p.path.empty()) {
      out += p.literal;
      continue;
    }
    const json* v = &vars;
    std::string walked;
    for (const std::string& key : p.path) {
      walked += (walked.empty() ? "" : ".") + key;
      if (!v->is_object() || !v->contains(key)) {
        return InputError(fmt::format("the item has no field '{}'", walked));
      }
      v = &(*v)[key];
    }
    json value = *v;
    for (const std::string& f : p.filters) {
      if (f == "lettered" || f == "lines") {
        if (!value.is_array()) {
          return InputError(
              fmt::format("'{}' is {}, and {} takes a list", walked, Describe(value), f));
        }
        std::string s;
        for (size_t k = 0; k < value.size(); ++k) {
          if (!value[k].is_string() && !value[k].is_number()) {
            return InputError(
                fmt::format("'{}' item {} is {}, not text", walked, k, Describe(value[k])));
          }
          s += (k ? "\n" : "") + (f == "lines" ? "" : Letter(k) + ". ") + ScalarText(value[k]);
        }
        value = s;
        continue;
      }
      if (f == "json") {
        value = value.dump();
        continue;
      }
      if (!value.is_string() && !value.is_number() && !value.is_boolean()) {
        return InputError(
            fmt::format("'{}' is {}, and filter '{}' takes text", walked, Describe(value), f));
      }
      std::string s = ScalarText(value);
      if (f == "strip") {
        s = StripSpace(s);
      } else if (f == "lower" || f == "upper") {
        for (char& ch : s) {
          if (f == "lower" && ch >= 'A' && ch <= 'Z') ch = char(ch - 'A' + 'a');
          if (f == "upper" && ch >= 'a' && ch <= 'z') ch = char(ch - 'a' + 'A');
        }
      } else if (f == "capitalize") {
        for (size_t k = 0; k < s.size(); ++k) {
          char& ch = s[k];
          if (k == 0 && ch >= 'a' && ch <= 'z') ch = char(ch - 'a' + 'A');
          if (k > 0 && ch >= 'A' && ch <= 'Z') ch = char(ch - 'A' + 'a');
        }
      } else if (f == "words") {
        std::replace(s.begin(), s.end(), '_', ' ');
      } else {
        for (const Rewrite& r : defined_.at(f)) {
          if (r.strip) {
            s = StripSpace(s);
          } else if (r.regex) {
            // std::regex recurses about once a character: a long text could overflow the stack.
            if (s.size() > kMaxRegexBytes) {
              return InputError(
                  fmt::format("filter '{}' on '{}': a regex step takes text of up to "
                              "{} bytes, this is {}",
                              f, walked, kMaxRegexBytes, s.size()));
            }
            try {
              s = std::regex_replace(s, std::regex(r.find, std::regex::ECMAScript), r.with);
            } catch (const std::regex_error& e) {
              return InputError(fmt::format("filter '{}' on '{}': {}", f, walked, e.what()));
            }
          } else {
            s = ReplaceAll(s, r.find, r.with);
          }
        }
      }
      value = s;
    }
    if (value.is_array() || value.is_object() || value.is_null()) {
      return InputError(
          fmt::format("'{}' is {}, not text (a list needs a filter such as "
                      "lettered)",
                      walked, Describe(value)));
    }
    out += ScalarText(value);
  }
  return out;
}

}  // namespace pipette::workload::task
