#include "pipette/quality/datasets.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <system_error>
#include <utility>

#include "pipette/util/files.h"
#include "pipette/util/sha256.h"
#include "pipette/util/strings.h"
#include "pipette/util/utf8.h"

namespace pipette::quality {
namespace {

using nlohmann::json;

constexpr int kMaxTokensLimit = 1 << 20;
// The most bytes one line (one item) of a dataset may take: far past any context a model holds.
constexpr size_t kMaxItemBytes = size_t{1} << 20;

// Where a problem is: "file:line: " plus an optional prefix such as "checker 2 (regex): ".
struct Where {
  const std::string& path;
  int line = 0;
  std::string prefix;

  Error Fail(std::string_view what) const {
    return ErrorAt({.file = path, .line = line}, prefix + std::string(what), 2);
  }
  Where Nested(std::string nested_prefix) const {
    return Where{path, line, std::move(nested_prefix)};
  }
};

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out += ", ";
    out += w;
  }
  return out;
}

// The parser's message without nlohmann's "[json.exception.parse_error.101] " tag; every line
// is parsed on its own, so "at line 1, column 5" becomes "at column 5".
std::string ParseMessage(const json::exception& e) {
  std::string msg = e.what();
  if (msg.rfind("[json.exception.", 0) == 0) {
    const size_t close = msg.find("] ");
    if (close != std::string::npos) msg.erase(0, close + 2);
  }
  const std::string line1 = "at line 1, column";
  const size_t at = msg.find(line1);
  if (at != std::string::npos) msg.replace(at, line1.size(), "at column");
  return msg;
}

// A dataset that cannot be read is bad input (exit code 2).
Result<std::string> ReadFile(const std::string& path) {
  Result<std::string> text = ReadFileToString(path);
  if (!text) {
    Error e = text.error();
    e.exit_code = 2;
    return e;
  }
  return text;
}

// Calls `visit` with every non-blank line parsed as a JSON object; stops at the first error.
Status ForEachObject(const std::string& path, std::string_view content,
                     const std::function<Status(const Where&, const json&)>& visit) {
  const char* start = content.data();
  if (content.substr(0, 3) == "\xEF\xBB\xBF") content.remove_prefix(3);  // UTF-8 BOM
  int line_no = 0;
  while (!content.empty()) {
    ++line_no;
    const size_t nl = content.find('\n');
    std::string_view line = content.substr(0, nl);
    content.remove_prefix(nl == std::string_view::npos ? content.size() : nl + 1);
    const Where where{path, line_no, ""};
    // An item is a line: one past the bound is refused before it is parsed, measured or sized
    // into a context.
    if (line.size() > kMaxItemBytes) {
      return where.Fail(fmt::format("the line is {} bytes, more than the {} an item may take",
                                    line.size(), FormatBytes(double(kMaxItemBytes))));
    }
    // Text from outside reaches JSON requests and the store, which take only UTF-8.
    if (auto bad = FirstInvalidUtf8(line)) {
      return NotUtf8Error(path, line, *bad, line_no, static_cast<size_t>(line.data() - start));
    }
    if (line.find_first_not_of(" \t\r\f\v") == std::string_view::npos) continue;  // blank
    json obj;
    try {
      obj = json::parse(line.begin(), line.end());
    } catch (const json::exception& e) {  // parse_error; out_of_range for 1e999
      return where.Fail("not valid JSON: " + ParseMessage(e));
    }
    if (!obj.is_object()) {
      return where.Fail(fmt::format("expected a JSON object, got {}", JsonKind(obj)));
    }
    Status s = visit(where, obj);
    if (!s) return s;
  }
  return {};
}

Status CheckKnownFields(const Where& where, const json& obj,
                        const std::vector<std::string>& known) {
  for (const auto& [key, value] : obj.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string hint = DidYouMean(key, known);
    if (hint.empty()) hint = fmt::format(" (expected one of: {})", Join(known));
    return where.Fail(fmt::format("unknown field '{}'{}", key, hint));
  }
  return {};
}

// A required string field; empty strings are refused unless allow_empty.
Result<std::string> RequiredString(const Where& where, const json& obj, const char* key,
                                   bool allow_empty = false) {
  auto it = obj.find(key);
  if (it == obj.end()) return where.Fail(fmt::format("missing '{}'", key));
  if (!it->is_string()) {
    return where.Fail(fmt::format("'{}' must be a string, got {}", key, JsonKind(*it)));
  }
  std::string s = it->get<std::string>();
  if (s.empty() && !allow_empty) return where.Fail(fmt::format("'{}' is empty", key));
  return s;
}

// An optional string field: "" when absent.
Result<std::string> OptionalString(const Where& where, const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end()) return std::string();
  if (!it->is_string()) {
    return where.Fail(fmt::format("'{}' must be a string, got {}", key, JsonKind(*it)));
  }
  return it->get<std::string>();
}

// A JSON integer (no fraction, no exponent) as int64; values beyond int64 are clamped.
std::optional<int64_t> AsInt64(const json& v) {
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    return static_cast<int64_t>(u > kMax ? kMax : u);
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  return std::nullopt;
}

Result<int64_t> RequiredInt(const Where& where, const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end()) return where.Fail(fmt::format("missing '{}'", key));
  std::optional<int64_t> v = AsInt64(*it);
  if (!v) return where.Fail(fmt::format("'{}' must be an integer, got {}", key, JsonKind(*it)));
  return *v;
}

// ---- Multiple choice ----------------------------------------------------------------------

Result<McItem> ParseMcItem(const Where& where, const json& obj) {
  static const std::vector<std::string> kFields = {"id",     "question",  "choices", "answer",
                                                   "source", "task_type", "language"};
  if (Status s = CheckKnownFields(where, obj, kFields); !s) return s.error();
  McItem item;
  item.line = where.line;
  Result<std::string> id = RequiredString(where, obj, "id");
  if (!id) return id.error();
  item.id = std::move(*id);
  Result<std::string> question = RequiredString(where, obj, "question");
  if (!question) return question.error();
  item.question = std::move(*question);

  auto choices = obj.find("choices");
  if (choices == obj.end()) return where.Fail("missing 'choices'");
  if (!choices->is_array()) {
    return where.Fail(
        fmt::format("'choices' must be an array of strings, got {}", JsonKind(*choices)));
  }
  for (size_t i = 0; i < choices->size(); ++i) {
    const json& c = (*choices)[i];
    if (!c.is_string()) {
      return where.Fail(fmt::format("'choices'[{}] must be a string, got {}", i, JsonKind(c)));
    }
    std::string text = c.get<std::string>();
    if (text.empty()) return where.Fail(fmt::format("'choices'[{}] is empty", i));
    for (size_t j = 0; j < item.choices.size(); ++j) {
      if (item.choices[j] == text) {
        return where.Fail(
            fmt::format("'choices'[{}] and [{}] are the same ({})", j, i, json(text).dump()));
      }
    }
    item.choices.push_back(std::move(text));
  }
  if (item.choices.size() < 2) {
    return where.Fail(
        fmt::format("'choices' needs at least 2 entries, has {}", item.choices.size()));
  }

  Result<int64_t> answer = RequiredInt(where, obj, "answer");
  if (!answer) return answer.error();
  const auto n = static_cast<int64_t>(item.choices.size());
  if (*answer < 0) {
    return where.Fail(fmt::format(
        "'answer' is {} but must be a 0-based index into 'choices' (0-{})", *answer, n - 1));
  }
  if (*answer >= n) {
    return where.Fail(
        fmt::format("'answer' is {} but there are only {} choices (0-based)", *answer, n));
  }
  item.answer = static_cast<int>(*answer);

  Result<std::string> source = OptionalString(where, obj, "source");
  if (!source) return source.error();
  item.source = std::move(*source);
  Result<std::string> task_type = OptionalString(where, obj, "task_type");
  if (!task_type) return task_type.error();
  item.task_type = std::move(*task_type);
  Result<std::string> language = OptionalString(where, obj, "language");
  if (!language) return language.error();
  item.language = std::move(*language);
  return item;
}

// ---- Generation ---------------------------------------------------------------------------

struct CheckerSchema {
  const char* type;
  const char* role;                 // default role
  std::vector<std::string> fields;  // besides "type" and "role"
};

const std::vector<CheckerSchema>& CheckerSchemas() {
  static const std::vector<CheckerSchema> kSchemas = {
      {"exact", "task", {"value", "ignore_case"}},
      {"regex", "format", {"pattern"}},
      {"json_valid", "format", {}},
      {"json_keys", "format", {"keys"}},
      {"json_values", "task", {"values"}},
      {"max_chars", "format", {"value"}},
      {"contains", "task", {"value", "ignore_case"}},
  };
  return kSchemas;
}

const CheckerSchema* FindSchema(std::string_view type) {
  for (const CheckerSchema& s : CheckerSchemas()) {
    if (type == s.type) return &s;
  }
  return nullptr;
}

Status CheckOptionalBool(const Where& where, const json& spec, const char* key) {
  auto it = spec.find(key);
  if (it != spec.end() && !it->is_boolean()) {
    return where.Fail(fmt::format("'{}' must be true or false, got {}", key, JsonKind(*it)));
  }
  return {};
}

// Fields specific to each checker type.
Status CheckCheckerFields(const Where& where, const std::string& type, const json& spec) {
  if (type == "exact" || type == "contains") {
    Result<std::string> value = RequiredString(where, spec, "value", type == "exact");
    if (!value) return value.error();
    return CheckOptionalBool(where, spec, "ignore_case");
  }
  if (type == "regex") {
    Result<std::string> pattern = RequiredString(where, spec, "pattern", true);
    if (!pattern) return pattern.error();
    for (char c : *pattern) {
      if (static_cast<unsigned char>(c) >= 0x80) {
        return where.Fail(
            "'pattern' contains a non-ASCII character; std::regex matches bytes, so check "
            "non-ASCII text with 'exact', 'contains' or 'max_chars' instead");
      }
    }
    try {
      std::regex re(*pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return where.Fail(fmt::format("'pattern' {} is not a valid ECMAScript regex: {}",
                                    json(*pattern).dump(), e.what()));
    }
    return {};
  }
  if (type == "json_keys") {
    auto keys = spec.find("keys");
    if (keys == spec.end()) return where.Fail("missing 'keys'");
    if (!keys->is_object() || keys->empty()) {
      return where.Fail(fmt::format("'keys' must be a non-empty object {{name: type}}, got {}",
                                    keys->is_object() ? "an empty object" : JsonKind(*keys)));
    }
    static const std::vector<std::string> kTypes = {"string", "integer", "number", "boolean",
                                                    "array",  "object",  "null"};
    for (const auto& [name, t] : keys->items()) {
      const std::string t_str = t.is_string() ? t.get<std::string>() : std::string();
      if (std::find(kTypes.begin(), kTypes.end(), t_str) == kTypes.end()) {
        std::string hint = t.is_string() ? DidYouMean(t_str, kTypes) : std::string();
        if (hint.empty()) hint = fmt::format(" (expected one of: {})", Join(kTypes));
        return where.Fail(fmt::format("'keys': the type of '{}' is {}{}", name,
                                      t.is_string() ? "'" + t_str + "'" : JsonKind(t), hint));
      }
    }
    return {};
  }
  if (type == "json_values") {
    auto values = spec.find("values");
    if (values == spec.end()) return where.Fail("missing 'values'");
    if (!values->is_object() || values->empty()) {
      return where.Fail(fmt::format("'values' must be a non-empty object {{name: value}}, got {}",
                                    values->is_object() ? "an empty object" : JsonKind(*values)));
    }
    return {};
  }
  if (type == "max_chars") {
    Result<int64_t> value = RequiredInt(where, spec, "value");
    if (!value) return value.error();
    if (*value < 1) return where.Fail(fmt::format("'value' must be at least 1, is {}", *value));
    return {};
  }
  return {};  // json_valid: no fields
}

Result<GenChecker> ParseChecker(const Where& item_where, size_t index, const json& spec) {
  const Where where = item_where.Nested(fmt::format("checker {}: ", index + 1));
  if (!spec.is_object()) {
    return where.Fail(fmt::format("must be an object, got {}", JsonKind(spec)));
  }
  Result<std::string> type = RequiredString(where, spec, "type");
  if (!type) return type.error();
  const CheckerSchema* schema = FindSchema(*type);
  if (schema == nullptr) {
    std::string hint = DidYouMean(*type, GenCheckerTypes());
    if (hint.empty()) hint = fmt::format(" (expected one of: {})", Join(GenCheckerTypes()));
    return item_where.Fail(fmt::format("unknown checker type '{}'{}", *type, hint));
  }
  const Where typed = item_where.Nested(fmt::format("checker {} ({}): ", index + 1, *type));
  std::vector<std::string> known = {"type", "role"};
  known.insert(known.end(), schema->fields.begin(), schema->fields.end());
  if (Status s = CheckKnownFields(typed, spec, known); !s) return s.error();

  GenChecker checker;
  checker.type = *type;
  checker.role = schema->role;
  if (auto role = spec.find("role"); role != spec.end()) {
    const std::vector<std::string> kRoles = {"format", "task"};
    const std::string r = role->is_string() ? role->get<std::string>() : std::string();
    if (r != "format" && r != "task") {
      return typed.Fail(fmt::format("'role' must be \"format\" or \"task\", got {}{}",
                                    role->is_string() ? "'" + r + "'" : JsonKind(*role),
                                    role->is_string() ? DidYouMean(r, kRoles) : std::string()));
    }
    checker.role = r;
  }
  if (Status s = CheckCheckerFields(typed, *type, spec); !s) return s.error();
  checker.spec = spec;
  return checker;
}

Result<GenItem> ParseGenItem(const Where& where, const json& obj) {
  static const std::vector<std::string> kFields = {"id",        "prompt",   "system",  "max_tokens",
                                                   "task_type", "language", "checkers"};
  if (Status s = CheckKnownFields(where, obj, kFields); !s) return s.error();
  GenItem item;
  item.line = where.line;
  Result<std::string> id = RequiredString(where, obj, "id");
  if (!id) return id.error();
  item.id = std::move(*id);
  Result<std::string> prompt = RequiredString(where, obj, "prompt");
  if (!prompt) return prompt.error();
  item.prompt = std::move(*prompt);
  Result<std::string> system = OptionalString(where, obj, "system");
  if (!system) return system.error();
  item.system = std::move(*system);
  if (obj.contains("max_tokens")) {
    Result<int64_t> max_tokens = RequiredInt(where, obj, "max_tokens");
    if (!max_tokens) return max_tokens.error();
    if (*max_tokens < 1 || *max_tokens > kMaxTokensLimit) {
      return where.Fail(fmt::format("'max_tokens' is {} but must be between 1 and {}", *max_tokens,
                                    kMaxTokensLimit));
    }
    item.max_tokens = static_cast<int>(*max_tokens);
  }
  Result<std::string> task_type = OptionalString(where, obj, "task_type");
  if (!task_type) return task_type.error();
  item.task_type = std::move(*task_type);
  Result<std::string> language = OptionalString(where, obj, "language");
  if (!language) return language.error();
  item.language = std::move(*language);

  auto checkers = obj.find("checkers");
  if (checkers == obj.end()) return where.Fail("missing 'checkers'");
  if (!checkers->is_array() || checkers->empty()) {
    return where.Fail(fmt::format("'checkers' must be a non-empty array of checker objects, got {}",
                                  checkers->is_array() ? "an empty array" : JsonKind(*checkers)));
  }
  for (size_t i = 0; i < checkers->size(); ++i) {
    Result<GenChecker> checker = ParseChecker(where, i, (*checkers)[i]);
    if (!checker) return checker.error();
    item.checkers.push_back(std::move(*checker));
  }
  return item;
}

// Shared driver: hash, parse every line with `parse`, refuse duplicate ids and no items.
template <class Dataset, class Parse>
Result<Dataset> ParseJsonl(std::string_view content, const std::string& path, Parse parse) {
  Dataset dataset;
  dataset.path = path;
  dataset.sha256 = Sha256Hex(content);
  std::map<std::string, int, std::less<>> first_line;
  Status s = ForEachObject(path, content, [&](const Where& where, const json& obj) -> Status {
    auto item = parse(where, obj);
    if (!item) return item.error();
    auto [it, inserted] = first_line.emplace(item->id, where.line);
    if (!inserted) {
      return where.Fail(fmt::format("duplicate id '{}' (first at line {})", item->id, it->second));
    }
    dataset.items.push_back(std::move(*item));
    return {};
  });
  if (!s) return s.error();
  if (dataset.items.empty()) {
    return ErrorAt({.file = path}, "no items (the file is empty or has only blank lines)", 2);
  }
  return dataset;
}

}  // namespace

const std::vector<std::string>& GenCheckerTypes() {
  static const std::vector<std::string> kTypes = [] {
    std::vector<std::string> types;
    for (const CheckerSchema& s : CheckerSchemas()) types.emplace_back(s.type);
    return types;
  }();
  return kTypes;
}

std::string DefaultCheckerRole(std::string_view type) {
  const CheckerSchema* schema = FindSchema(type);
  return schema == nullptr ? std::string() : std::string(schema->role);
}

Result<McDataset> ParseMcDataset(std::string_view content, const std::string& path) {
  return ParseJsonl<McDataset>(content, path, ParseMcItem);
}

Result<GenDataset> ParseGenDataset(std::string_view content, const std::string& path) {
  return ParseJsonl<GenDataset>(content, path, ParseGenItem);
}

Result<McDataset> LoadMcDataset(const std::string& path) {
  Result<std::string> content = ReadFile(path);
  if (!content) return content.error();
  return ParseMcDataset(*content, path);
}

Result<GenDataset> LoadGenDataset(const std::string& path) {
  Result<std::string> content = ReadFile(path);
  if (!content) return content.error();
  return ParseGenDataset(*content, path);
}

std::string JsonKind(const json& v) {
  switch (v.type()) {
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "an integer";
    case json::value_t::number_float:
      return "a number with a fraction or exponent";
    case json::value_t::array:
      return "an array";
    case json::value_t::object:
      return "an object";
    case json::value_t::null:
      return "null";
    default:
      return "an unknown value";
  }
}

}  // namespace pipette::quality
