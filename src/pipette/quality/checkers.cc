#include "pipette/quality/checkers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <regex>

#include "pipette/quality/ppl.h"
#include "pipette/util/field_reader.h"
#include "pipette/util/strings.h"

namespace pipette::quality {
namespace {

using nlohmann::json;

constexpr size_t kShowBytes = 80;  // how much of an output or value a detail quotes
// std::regex matches recursively, one stack frame or more per character: on a 10-20 KB output it
// can overflow an 8 MiB stack. Longer outputs fail the regex checker instead of crashing.
constexpr size_t kMaxRegexBytes = 4096;
// Deeper JSON is refused before parsing, so that the recursive dump and comparison of a
// pathological output cannot exhaust the stack either.
constexpr int kMaxJsonDepth = 512;

// `s` as a JSON string literal (so newlines show as \n), cut after about kShowBytes bytes at a
// UTF-8 character boundary. Invalid UTF-8 is shown as U+FFFD.
std::string Show(std::string_view s) {
  bool cut = false;
  if (s.size() > kShowBytes) {
    size_t end = kShowBytes;
    while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
    s = s.substr(0, end);
    cut = true;
  }
  std::string quoted = json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
  if (cut) quoted += "...";
  return quoted;
}

std::string ShowJson(const json& v) {
  std::string text = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > kShowBytes) {
    size_t end = kShowBytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    text = text.substr(0, end) + "...";
  }
  return text;
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

CheckResult Pass() { return CheckResult{true, ""}; }
CheckResult Fail(std::string detail) { return CheckResult{false, std::move(detail)}; }

const std::string* StringField(const json& spec, const char* key) {
  auto it = spec.find(key);
  return it != spec.end() && it->is_string() ? it->get_ptr<const std::string*>() : nullptr;
}

bool BoolField(const json& spec, const char* key) {
  auto it = spec.find(key);
  return it != spec.end() && it->is_boolean() && it->get<bool>();
}

// The deepest nesting of [ and { outside strings (an estimate for invalid JSON).
int NestingDepth(std::string_view text) {
  int depth = 0, max_depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      max_depth = std::max(max_depth, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return max_depth;
}

// Parses `text` as strict JSON (no comments, no trailing commas, nothing around it); the error
// is the parser's message.
Result<json> ParseStrict(std::string_view text) {
  if (NestingDepth(text) > kMaxJsonDepth) {
    return RuntimeError(fmt::format("nested more than {} levels deep", kMaxJsonDepth));
  }
  try {
    return json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/true,
                       /*ignore_comments=*/false);
  } catch (const json::exception& e) {  // parse_error; out_of_range for 1e999
    std::string msg = e.what();
    if (msg.rfind("[json.exception.", 0) == 0) {
      const size_t close = msg.find("] ");
      if (close != std::string::npos) msg.erase(0, close + 2);
    }
    return RuntimeError(std::move(msg));
  }
}

// Parses `text` as a JSON object for json_keys / json_values; else the check's failure.
Result<json, CheckResult> ParseObject(std::string_view text) {
  auto v = ParseStrict(text);
  if (!v) return Fail("output is not valid JSON: " + v.error().message);
  if (!v->is_object()) return Fail(fmt::format("output is {}, not a JSON object", JsonKind(*v)));
  return std::move(*v);
}

bool HasType(const json& v, std::string_view type) {
  if (type == "string") return v.is_string();
  if (type == "integer") return v.is_number_integer();  // no fraction, no exponent
  if (type == "number") return v.is_number();           // booleans are not numbers
  if (type == "boolean") return v.is_boolean();
  if (type == "array") return v.is_array();
  if (type == "object") return v.is_object();
  if (type == "null") return v.is_null();
  return false;
}

CheckResult CheckExact(const json& spec, std::string_view out) {
  const std::string* value = StringField(spec, "value");
  if (value == nullptr) return Fail("checker has no string 'value'");
  const bool ignore_case = BoolField(spec, "ignore_case");
  const bool equal = ignore_case ? AsciiLower(out) == AsciiLower(*value) : out == *value;
  if (equal) return Pass();
  return Fail(fmt::format("expected {}{}, got {}", Show(*value),
                          ignore_case ? " (ignoring case)" : "", Show(out)));
}

CheckResult CheckContains(const json& spec, std::string_view out) {
  const std::string* value = StringField(spec, "value");
  if (value == nullptr) return Fail("checker has no string 'value'");
  const bool ignore_case = BoolField(spec, "ignore_case");
  const bool found = ignore_case ? AsciiLower(out).find(AsciiLower(*value)) != std::string::npos
                                 : out.find(*value) != std::string_view::npos;
  if (found) return Pass();
  return Fail(fmt::format("output does not contain {}{}: {}", Show(*value),
                          ignore_case ? " (ignoring case)" : "", Show(out)));
}

CheckResult CheckRegex(const json& spec, std::string_view out) {
  const std::string* pattern = StringField(spec, "pattern");
  if (pattern == nullptr) return Fail("checker has no string 'pattern'");
  if (out.size() > kMaxRegexBytes) {
    return Fail(fmt::format("output is {} bytes; regexes are only matched on outputs of up to {}",
                            out.size(), kMaxRegexBytes));
  }
  try {
    const std::regex re(*pattern, std::regex::ECMAScript);
    if (std::regex_match(out.begin(), out.end(), re)) return Pass();
  } catch (const std::regex_error& e) {
    return Fail(fmt::format("regex {} could not be evaluated: {}", Show(*pattern), e.what()));
  }
  return Fail(fmt::format("output {} does not match {}", Show(out), Show(*pattern)));
}

CheckResult CheckJsonValid(std::string_view out) {
  auto v = ParseStrict(out);
  if (v) return Pass();
  return Fail("output is not valid JSON: " + v.error().message);
}

CheckResult CheckJsonKeys(const json& spec, std::string_view out) {
  auto keys = spec.find("keys");
  if (keys == spec.end() || !keys->is_object()) return Fail("checker has no object 'keys'");
  auto obj = ParseObject(out);
  if (!obj) return obj.error();
  for (const auto& [name, type] : keys->items()) {
    const std::string t = type.is_string() ? type.get<std::string>() : std::string();
    auto it = obj->find(name);
    if (it == obj->end()) return Fail(fmt::format("missing key '{}'", name));
    if (!HasType(*it, t)) {
      return Fail(fmt::format("key '{}' is {} ({}), expected {}", name, JsonKind(*it),
                              ShowJson(*it), t.empty() ? "?" : t));
    }
  }
  return Pass();
}

CheckResult CheckJsonValues(const json& spec, std::string_view out) {
  auto values = spec.find("values");
  if (values == spec.end() || !values->is_object()) return Fail("checker has no object 'values'");
  auto obj = ParseObject(out);
  if (!obj) return obj.error();
  for (const auto& [name, expected] : values->items()) {
    auto it = obj->find(name);
    if (it == obj->end()) return Fail(fmt::format("missing key '{}'", name));
    // nlohmann's ==: numbers by value across integer/float, booleans and null by identity,
    // strings exactly, arrays in order, objects by key set and values.
    if (*it != expected) {
      return Fail(
          fmt::format("key '{}' is {}, expected {}", name, ShowJson(*it), ShowJson(expected)));
    }
  }
  return Pass();
}

CheckResult CheckMaxChars(const json& spec, std::string_view out) {
  auto value = spec.find("value");
  if (value == spec.end() || !value->is_number_integer()) {
    return Fail("checker has no integer 'value'");
  }
  const int64_t limit =
      value->is_number_unsigned()
          ? static_cast<int64_t>(std::min<uint64_t>(value->get<uint64_t>(), INT64_MAX))
          : value->get<int64_t>();
  const int64_t n = CountCodePoints(out);
  if (n <= limit) return Pass();
  return Fail(fmt::format("output is {} characters, at most {} allowed", n, limit));
}

}  // namespace

CheckResult RunChecker(const GenChecker& checker, std::string_view output) {
  const std::string_view out = Trim(output);  // ASCII white space only
  const json& spec = checker.spec;
  const std::string& type = checker.type;
  if (type == "exact") return CheckExact(spec, out);
  if (type == "regex") return CheckRegex(spec, out);
  if (type == "json_valid") return CheckJsonValid(out);
  if (type == "json_keys") return CheckJsonKeys(spec, out);
  if (type == "json_values") return CheckJsonValues(spec, out);
  if (type == "max_chars") return CheckMaxChars(spec, out);
  if (type == "contains") return CheckContains(spec, out);
  return Fail(fmt::format("unknown checker type '{}'", type));
}

Verdict Judge(const GenItem& item, std::string_view output) {
  Verdict v;
  v.format_ok = true;
  v.task_ok = true;
  for (const GenChecker& checker : item.checkers) {
    CheckResult r = RunChecker(checker, output);
    const std::string role = checker.role.empty() ? DefaultCheckerRole(checker.type) : checker.role;
    if (!r.passed) {
      v.task_ok = false;
      if (role == "format") v.format_ok = false;
    }
    v.results.push_back(std::move(r));
  }
  return v;
}

}  // namespace pipette::quality
