#include "pipette/quality/datasets.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

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

#include "pipette/util/field_reader.h"
#include "pipette/util/files.h"
#include "pipette/util/place.h"
#include "pipette/util/sha256.h"
#include "pipette/util/strings.h"
#include "pipette/util/utf8.h"

namespace pipette::quality {
namespace {

using nlohmann::json;

constexpr int kMaxTokensLimit = 1 << 20;
// The most bytes one line (one item) of a dataset may take: far past any context a model holds.
constexpr size_t kMaxItemBytes = size_t{1} << 20;

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
                     const std::function<Status(const Place&, const json&)>& visit) {
  const char* start = content.data();
  if (content.substr(0, 3) == "\xEF\xBB\xBF") content.remove_prefix(3);  // UTF-8 BOM
  int line_no = 0;
  while (!content.empty()) {
    ++line_no;
    const size_t nl = content.find('\n');
    std::string_view line = content.substr(0, nl);
    content.remove_prefix(nl == std::string_view::npos ? content.size() : nl + 1);
    const Place where{.file = path, .line = line_no};
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

// "unknown field 'x'" with a hint, for the first field of `r`'s object not in `known`.
void CheckKnownFields(FieldReader& r, const std::vector<std::string>& known) {
  const std::optional<std::string> key = r.FirstUnknown(known);
  if (!key) return;
  std::string hint = DidYouMean(*key, known);
  if (hint.empty()) hint = fmt::format(" (expected one of: {})", fmt::join(known, ", "));
  r.Fail(fmt::format("unknown field '{}'{}", *key, hint));
}

// ---- Multiple choice ----------------------------------------------------------------------

Result<McItem> ParseMcItem(const Place& where, const json& obj) {
  static const std::vector<std::string> kFields = {"id",     "question",  "choices", "answer",
                                                   "source", "task_type", "language"};
  FieldReader r(obj, where);
  CheckKnownFields(r, kFields);
  McItem item;
  item.line = where.line;
  item.id = r.Text("id");
  item.question = r.Text("question");
  item.choices = r.Strings("choices");
  if (!r.ok()) return r.status().error();
  for (size_t i = 0; i < item.choices.size(); ++i) {
    if (item.choices[i].empty()) return where.Fail(fmt::format("field 'choices[{}]' is empty", i));
    for (size_t j = 0; j < i; ++j) {
      if (item.choices[j] == item.choices[i]) {
        return where.Fail(fmt::format("field 'choices': [{}] and [{}] are the same ({})", j, i,
                                      json(item.choices[i]).dump()));
      }
    }
  }
  if (item.choices.size() < 2) {
    return where.Fail(
        fmt::format("field 'choices' needs at least 2 entries, has {}", item.choices.size()));
  }
  const auto n = static_cast<int64_t>(item.choices.size());
  const int64_t answer = r.Int("answer", std::numeric_limits<int64_t>::min(), FieldReader::kNoMax);
  if (!r.ok()) return r.status().error();
  if (answer < 0) {
    return where.Fail(fmt::format(
        "field 'answer' is {} but must be a 0-based index into 'choices' (0-{})", answer, n - 1));
  }
  if (answer >= n) {
    return where.Fail(
        fmt::format("field 'answer' is {} but there are only {} choices (0-based)", answer, n));
  }
  item.answer = static_cast<int>(answer);
  item.source = r.String("source", "");
  item.task_type = r.String("task_type", "");
  item.language = r.String("language", "");
  if (!r.ok()) return r.status().error();
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

// Fields specific to each checker type.
void CheckCheckerFields(FieldReader& r, const std::string& type) {
  if (type == "exact" || type == "contains") {
    const std::string value = r.String("value");
    if (type == "contains" && r.ok() && value.empty()) r.Fail("field 'value' is empty");
    (void)r.Bool("ignore_case", false);
    return;
  }
  if (type == "regex") {
    const std::string pattern = r.String("pattern");
    if (!r.ok()) return;
    for (char c : pattern) {
      if (static_cast<unsigned char>(c) >= 0x80) {
        r.Fail(
            "field 'pattern' contains a non-ASCII character; std::regex matches bytes, so check "
            "non-ASCII text with 'exact', 'contains' or 'max_chars' instead");
        return;
      }
    }
    try {
      std::regex re(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      r.Fail(fmt::format("field 'pattern' {} is not a valid ECMAScript regex: {}",
                         json(pattern).dump(), e.what()));
    }
    return;
  }
  if (type == "json_keys") {
    const json keys = r.Object("keys");
    if (!r.ok()) return;
    if (keys.empty()) {
      r.Fail("field 'keys' must be a non-empty object {name: type}, got an empty object");
      return;
    }
    static const std::vector<std::string> kTypes = {"string", "integer", "number", "boolean",
                                                    "array",  "object",  "null"};
    for (const auto& [name, t] : keys.items()) {
      const std::string t_str = t.is_string() ? t.get<std::string>() : std::string();
      if (std::find(kTypes.begin(), kTypes.end(), t_str) == kTypes.end()) {
        std::string hint = t.is_string() ? DidYouMean(t_str, kTypes) : std::string();
        if (hint.empty()) hint = fmt::format(" (expected one of: {})", fmt::join(kTypes, ", "));
        r.Fail(fmt::format("field 'keys': the type of '{}' is {}{}", name,
                           t.is_string() ? "'" + t_str + "'" : JsonKind(t), hint));
        return;
      }
    }
    return;
  }
  if (type == "json_values") {
    const json values = r.Object("values");
    if (r.ok() && values.empty()) {
      r.Fail("field 'values' must be a non-empty object {name: value}, got an empty object");
    }
    return;
  }
  if (type == "max_chars") (void)r.Int("value", 1, FieldReader::kNoMax);
  // json_valid: no fields
}

Result<GenChecker> ParseChecker(const Place& item_where, size_t index, const json& spec) {
  FieldReader r(spec, item_where.Naming(fmt::format("checker {}", index + 1)));
  const std::string type = r.String("type");
  if (!r.ok()) return r.status().error();
  const CheckerSchema* schema = FindSchema(type);
  if (schema == nullptr) {
    std::string hint = DidYouMean(type, GenCheckerTypes());
    if (hint.empty())
      hint = fmt::format(" (expected one of: {})", fmt::join(GenCheckerTypes(), ", "));
    return item_where.Fail(fmt::format("unknown checker type '{}'{}", type, hint));
  }
  FieldReader typed(spec, item_where.Naming(fmt::format("checker {} ({})", index + 1, type)));
  std::vector<std::string> known = {"type", "role"};
  known.insert(known.end(), schema->fields.begin(), schema->fields.end());
  CheckKnownFields(typed, known);

  GenChecker checker;
  checker.type = type;
  checker.role = typed.String("role", schema->role);
  if (typed.ok() && checker.role != "format" && checker.role != "task") {
    typed.Fail(fmt::format("field 'role' must be \"format\" or \"task\", got '{}'{}", checker.role,
                           DidYouMean(checker.role, {"format", "task"})));
  }
  CheckCheckerFields(typed, type);
  if (!typed.ok()) return typed.status().error();
  checker.spec = spec;
  return checker;
}

Result<GenItem> ParseGenItem(const Place& where, const json& obj) {
  static const std::vector<std::string> kFields = {"id",        "prompt",   "system",  "max_tokens",
                                                   "task_type", "language", "checkers"};
  FieldReader r(obj, where);
  CheckKnownFields(r, kFields);
  GenItem item;
  item.line = where.line;
  item.id = r.Text("id");
  item.prompt = r.Text("prompt");
  item.system = r.String("system", "");
  if (r.Has("max_tokens"))
    item.max_tokens = static_cast<int>(r.Int("max_tokens", 1, kMaxTokensLimit));
  item.task_type = r.String("task_type", "");
  item.language = r.String("language", "");
  const json checkers = r.Array("checkers");
  if (!r.ok()) return r.status().error();
  if (checkers.empty()) {
    return where.Fail(
        "field 'checkers' must be a non-empty array of checker objects, got an "
        "empty array");
  }
  for (size_t i = 0; i < checkers.size(); ++i) {
    Result<GenChecker> checker = ParseChecker(where, i, checkers[i]);
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
  Status s = ForEachObject(path, content, [&](const Place& where, const json& obj) -> Status {
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

}  // namespace pipette::quality
