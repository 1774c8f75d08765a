// Loaders for the quality datasets in JSONL (datasets/mc/README.md, datasets/gen/README.md): the
// shipped files and a user's own files go through the same checks. Every problem is an
// InputError (exit code 2) naming the file, the line and the field, e.g.
// "my.jsonl:3: 'answer' is 4 but there are only 4 choices (0-based)".
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/util/result.h"

namespace pipette::quality {

// One multiple-choice question (datasets/mc/README.md).
struct McItem {
  std::string id, question;
  std::vector<std::string> choices;         // at least 2, none empty, no duplicates
  int answer = 0;                           // 0-based index into choices
  std::string source, task_type, language;  // optional; "" when absent
  int line = 0;                             // 1-based line in the file
};

// One checker of a generation item (datasets/gen/README.md "Checkers").
struct GenChecker {
  std::string type;     // exact, regex, json_valid, json_keys, json_values, max_chars, contains
  std::string role;     // "format" or "task": as written, else the type's default
  nlohmann::json spec;  // the checker object as written (fields already validated by the loader)
};

// One generation prompt with its checkers.
struct GenItem {
  std::string id, prompt, system;  // system: "" when absent
  int max_tokens = 128;
  std::string task_type, language;   // optional; "" when absent
  std::vector<GenChecker> checkers;  // at least one
  int line = 0;                      // 1-based line in the file
};

struct McDataset {
  std::string path, sha256;  // sha256: of the file bytes, lowercase hex
  std::vector<McItem> items;
};

struct GenDataset {
  std::string path, sha256;  // sha256: of the file bytes, lowercase hex
  std::vector<GenItem> items;
};

// Loads and validates a multiple-choice JSONL file. Blank lines are skipped; unknown fields,
// wrong types, duplicate ids and an `answer` out of range are errors; a file without items too.
Result<McDataset> LoadMcDataset(const std::string& path);

// Loads and validates a generation JSONL file, including every checker's fields (regexes are
// compiled, json_keys types are checked). Same rules as LoadMcDataset otherwise.
Result<GenDataset> LoadGenDataset(const std::string& path);

// The same checks on a file's content; `path` names it in messages (and in the dataset).
Result<McDataset> ParseMcDataset(std::string_view content, const std::string& path);
Result<GenDataset> ParseGenDataset(std::string_view content, const std::string& path);

// The checker types, in the order of the README table.
const std::vector<std::string>& GenCheckerTypes();

// "format" for json_valid, json_keys, regex and max_chars; "task" for exact, json_values,
// contains; "" for an unknown type.
std::string DefaultCheckerRole(std::string_view type);

}  // namespace pipette::quality
