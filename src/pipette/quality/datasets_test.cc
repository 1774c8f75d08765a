#include "pipette/quality/datasets.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include "pipette/testing/paths.h"
#include "pipette/util/sha256.h"

namespace pipette::quality {
namespace {

const std::string kSourceDir = pipette::testing::SourceDir();

// Writes small JSONL files to the temp folder and removes them afterwards.
class DatasetFile : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const std::string& p : written_) std::remove(p.c_str());
  }

  std::string Write(const std::string& content) {
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::string path = ::testing::TempDir() + "pipette_" + name + "_" + std::to_string(::getpid()) +
                       "_" + std::to_string(written_.size()) + ".jsonl";
    std::ofstream(path, std::ios::binary) << content;
    written_.push_back(path);
    return path;
  }

  // The error message of loading `content` as mc, with the temp path replaced by "x.jsonl".
  std::string McError(const std::string& content) {
    const std::string path = Write(content);
    Result<McDataset> r = LoadMcDataset(path);
    EXPECT_FALSE(r.ok());
    if (r.ok()) return "";
    EXPECT_EQ(r.error().exit_code, 2);
    return Relabel(r.error().message, path);
  }

  std::string GenError(const std::string& content) {
    const std::string path = Write(content);
    Result<GenDataset> r = LoadGenDataset(path);
    EXPECT_FALSE(r.ok());
    if (r.ok()) return "";
    EXPECT_EQ(r.error().exit_code, 2);
    return Relabel(r.error().message, path);
  }

  static std::string Relabel(std::string message, const std::string& path) {
    if (message.rfind(path, 0) == 0) message.replace(0, path.size(), "x.jsonl");
    return message;
  }

 private:
  std::vector<std::string> written_;
};

const char kMcLine[] =
    R"({"id": "q1", "question": "2 + 2?", "choices": ["3", "4", "5"], "answer": 1})";
const char kGenLine[] =
    R"({"id": "g1", "prompt": "Say yes.", "checkers": [{"type": "exact", "value": "yes"}]})";

TEST(McDatasetLoad, ShippedFileLoads) {
  const std::string path = kSourceDir + "/datasets/mc/pipette-mc-v1.jsonl";
  Result<McDataset> r = LoadMcDataset(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->items.size(), 164u);
  std::map<std::string, int> per_language;
  for (const McItem& item : r->items) {
    ++per_language[item.language];
    EXPECT_GE(item.choices.size(), 2u) << item.id;
    EXPECT_LE(item.choices.size(), 5u) << item.id;
    EXPECT_EQ(item.source, "pipette") << item.id;
  }
  EXPECT_GE(per_language["en"], 60);
  EXPECT_GE(per_language["zh"], 60);
  EXPECT_EQ(per_language.size(), 2u);
  EXPECT_EQ(r->items.front().id, "mc-en-gk-001");
  EXPECT_EQ(r->items.front().line, 1);
  Result<std::string> sha = Sha256File(path);
  ASSERT_TRUE(sha.ok());
  EXPECT_EQ(r->sha256, *sha);
  EXPECT_EQ(r->path, path);
}

TEST(GenDatasetLoad, ShippedFileLoads) {
  Result<GenDataset> r = LoadGenDataset(kSourceDir + "/datasets/gen/pipette-gen-v1.jsonl");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->items.size(), 71u);
  int with_system = 0;
  for (const GenItem& item : r->items) {
    if (!item.system.empty()) ++with_system;
    bool has_format = false, has_task = false;
    for (const GenChecker& c : item.checkers) {
      has_format |= c.role == "format";
      has_task |= c.role == "task";
    }
    EXPECT_TRUE(has_format && has_task) << item.id;
  }
  EXPECT_EQ(with_system, 4);
  EXPECT_EQ(r->sha256.size(), 64u);
}

TEST_F(DatasetFile, McMinimalItemGetsDefaultsAndBlankLinesAreSkipped) {
  const std::string path = Write(std::string("\n") + kMcLine + "\n  \n\r\n" +
                                 R"({"id": "q2", "question": "Q", "choices": ["a", "b"],)" +
                                 R"( "answer": 0, "language": "en", "task_type": "t"})");
  Result<McDataset> r = LoadMcDataset(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->items.size(), 2u);
  EXPECT_EQ(r->items[0].line, 2);
  EXPECT_EQ(r->items[0].answer, 1);
  EXPECT_EQ(r->items[0].choices[1], "4");
  EXPECT_EQ(r->items[0].source, "");
  EXPECT_EQ(r->items[0].language, "");
  EXPECT_EQ(r->items[1].line, 5);
  EXPECT_EQ(r->items[1].language, "en");
  EXPECT_EQ(r->items[1].task_type, "t");
}

// The text itself goes through the same checks as a file (the fuzz harnesses read no file).
TEST(DatasetText, ParsesAsTheFileWouldAndNamesThePathGiven) {
  Result<McDataset> mc = ParseMcDataset(std::string(kMcLine) + "\n", "mine.jsonl");
  ASSERT_TRUE(mc.ok()) << mc.error().message;
  EXPECT_EQ(mc->path, "mine.jsonl");
  ASSERT_EQ(mc->items.size(), 1u);
  EXPECT_EQ(mc->sha256.size(), 64u);
  Result<GenDataset> gen = ParseGenDataset(std::string(kGenLine) + "\n{", "gen.jsonl");
  ASSERT_FALSE(gen.ok());
  EXPECT_NE(gen.error().message.find("gen.jsonl:2"), std::string::npos) << gen.error().message;
}

TEST_F(DatasetFile, GenMinimalItemGetsDefaults) {
  const std::string path = Write(std::string(kGenLine) + "\n");
  Result<GenDataset> r = LoadGenDataset(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->items.size(), 1u);
  const GenItem& item = r->items[0];
  EXPECT_EQ(item.max_tokens, 128);
  EXPECT_EQ(item.system, "");
  ASSERT_EQ(item.checkers.size(), 1u);
  EXPECT_EQ(item.checkers[0].type, "exact");
  EXPECT_EQ(item.checkers[0].role, "task");
  EXPECT_EQ(item.checkers[0].spec["value"], "yes");
}

TEST_F(DatasetFile, GenRolesDefaultAndOverride) {
  const std::string path = Write(
      R"({"id": "g", "prompt": "p", "max_tokens": 16, "checkers": [)"
      R"({"type": "json_valid"}, {"type": "regex", "pattern": "a+", "role": "task"},)"
      R"( {"type": "contains", "value": ",", "role": "format"}, {"type": "max_chars", "value": 3},)"
      R"( {"type": "json_values", "values": {"a": 1}}, {"type": "json_keys", "keys": {"a": "null"}}]})");
  Result<GenDataset> r = LoadGenDataset(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto& c = r->items[0].checkers;
  ASSERT_EQ(c.size(), 6u);
  EXPECT_EQ(r->items[0].max_tokens, 16);
  EXPECT_EQ(c[0].role, "format");
  EXPECT_EQ(c[1].role, "task");
  EXPECT_EQ(c[2].role, "format");
  EXPECT_EQ(c[3].role, "format");
  EXPECT_EQ(c[4].role, "task");
  EXPECT_EQ(c[5].role, "format");
  EXPECT_EQ(DefaultCheckerRole("exact"), "task");
  EXPECT_EQ(DefaultCheckerRole("nope"), "");
  EXPECT_EQ(GenCheckerTypes().size(), 7u);
}

TEST_F(DatasetFile, BadJsonNamesFileAndLine) {
  const std::string msg = McError(std::string(kMcLine) + "\n{\"id\": \"q2\",\n");
  EXPECT_EQ(msg.rfind("x.jsonl:2: not valid JSON: ", 0), 0u) << msg;
  EXPECT_EQ(msg.find("json.exception"), std::string::npos) << msg;
  EXPECT_EQ(McError("[1, 2]\n"), "x.jsonl:1: expected a JSON object, got an array");
}

// Text from outside must be UTF-8 before it reaches a JSON request or the store: the first bad
// byte is named by line, column and offset, in mc's and gen's files alike (a string of JSON that
// nlohmann would refuse, and bytes outside any string).
TEST_F(DatasetFile, TextThatIsNotUtf8IsRefusedAtItsFirstBadByte) {
  const std::string bad_question = std::string(kMcLine) + "\n" +
                                   R"({"id": "q2", "question": "caf)" + "\xE9" +
                                   R"(", "choices": ["a", "b"], "answer": 0})";
  EXPECT_EQ(McError(bad_question),
            "x.jsonl:2:30: not UTF-8: byte 0xE9 (offset 105 of the file) starts no well-formed "
            "UTF-8 sequence; save the text as UTF-8");
  EXPECT_EQ(GenError(std::string(kGenLine) + "  \xFF\n").substr(0, 48),
            "x.jsonl:1:86: not UTF-8: byte 0xFF (offset 85 of");
}

// An item is bounded: a line past 1 MiB is refused by its place before it is parsed or sized.
TEST_F(DatasetFile, ALinePastTheBoundIsRefusedByItsPlace) {
  const std::string huge = R"({"id": "q2", "question": ")" + std::string(2 << 20, 'x') +
                           R"(", "choices": ["a", "b"], "answer": 0})";
  EXPECT_EQ(McError(std::string(kMcLine) + "\n" + huge + "\n"),
            "x.jsonl:2: the line is 2097216 bytes, more than the 1.00 MiB an item may take");
  EXPECT_EQ(GenError(huge).substr(0, 36), "x.jsonl:1: the line is 2097216 bytes");
}

TEST_F(DatasetFile, McFieldProblems) {
  // null is a value in a file, never a field left out.
  EXPECT_EQ(McError(R"({"id": "q", "question": "Q", "choices": ["a", "b"], "answer": 0, )"
                    R"("source": null})"),
            "x.jsonl:1: field 'source' must be a string, got null");
  EXPECT_EQ(McError(R"({"id": "q", "question": "Q", "answer": 0})"),
            "x.jsonl:1: missing required field 'choices'");
  EXPECT_EQ(
      McError(R"({"id": "q", "question": "Q", "choices": ["a", "b", "c", "d"], "answer": 4})"),
      "x.jsonl:1: field 'answer' is 4 but there are only 4 choices (0-based)");
  EXPECT_EQ(McError(R"({"id": "q", "question": "Q", "choices": ["a", "b"], "answer": -1})"),
            "x.jsonl:1: field 'answer' is -1 but must be a 0-based index into 'choices' (0-1)");
  EXPECT_EQ(
      McError(R"({"id": "q", "question": "Q", "choices": ["a", "b"], "answer": 1.0})"),
      "x.jsonl:1: field 'answer' must be an integer, got a number with a fraction or exponent");
  EXPECT_EQ(McError(R"({"id": "q", "question": "Q", "choices": ["a"], "answer": 0})"),
            "x.jsonl:1: field 'choices' needs at least 2 entries, has 1");
  EXPECT_EQ(McError(R"({"id": "q", "question": "Q", "choices": ["a", 2], "answer": 0})"),
            "x.jsonl:1: field 'choices[1]' must be a string, got an integer");
  EXPECT_EQ(McError(R"({"id": "q", "question": "Q", "choices": ["a", "b", "a"], "answer": 0})"),
            "x.jsonl:1: field 'choices': [0] and [2] are the same (\"a\")");
  EXPECT_EQ(McError(R"({"id": 7, "question": "Q", "choices": ["a", "b"], "answer": 0})"),
            "x.jsonl:1: field 'id' must be a string, got an integer");
  EXPECT_EQ(McError(R"({"id": "q", "question": "", "choices": ["a", "b"], "answer": 0})"),
            "x.jsonl:1: field 'question' is empty");
  EXPECT_EQ(McError(R"({"id": "q", "question": "Q", "choices": ["a", "b"], "anwser": 0})"),
            "x.jsonl:1: unknown field 'anwser' (did you mean 'answer'?)");
  const std::string far = McError(R"({"id": "q", "zzz": 1})");
  EXPECT_EQ(far.rfind("x.jsonl:1: unknown field 'zzz' (expected one of: id, question", 0), 0u)
      << far;
}

// The file and line are the error's context too; its message is their one rendering.
TEST_F(DatasetFile, AProblemKeepsItsFileAndLineAsContext) {
  const std::string path =
      Write(std::string(kMcLine) + "\n" + R"({"id": "q", "question": "Q", "answer": 0})");
  Result<McDataset> r = LoadMcDataset(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().context.file, path);
  EXPECT_EQ(r.error().context.line, 2);
  EXPECT_EQ(r.error().message, Describe(r.error().context, "missing required field 'choices'"));
  Result<McDataset> empty = LoadMcDataset(Write("\n"));
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().context.line, 0);
  EXPECT_FALSE(empty.error().context.file.empty());
}

TEST_F(DatasetFile, DuplicateIdNamesFirstLine) {
  EXPECT_EQ(McError(std::string(kMcLine) + "\n\n" + kMcLine + "\n"),
            "x.jsonl:3: duplicate id 'q1' (first at line 1)");
  EXPECT_EQ(GenError(std::string(kGenLine) + "\n" + kGenLine + "\n"),
            "x.jsonl:2: duplicate id 'g1' (first at line 1)");
}

TEST_F(DatasetFile, EmptyFileIsAnError) {
  EXPECT_EQ(McError("\n\n  \n"), "x.jsonl: no items (the file is empty or has only blank lines)");
  EXPECT_EQ(GenError(""), "x.jsonl: no items (the file is empty or has only blank lines)");
}

TEST_F(DatasetFile, MissingFileIsAnInputError) {
  Result<McDataset> r = LoadMcDataset("/nonexistent/pipette/none.jsonl");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().exit_code, 2);
  EXPECT_EQ(r.error().message, "cannot read /nonexistent/pipette/none.jsonl: no such file");
  EXPECT_EQ(r.error().context.file, "/nonexistent/pipette/none.jsonl");
}

TEST_F(DatasetFile, GenCheckerProblems) {
  auto line = [](const std::string& checker) {
    return R"({"id": "g", "prompt": "p", "checkers": [{"type": "json_valid"}, )" + checker + "]}";
  };
  EXPECT_EQ(GenError(std::string(kGenLine) + "\n\n\n\n" + line(R"({"type": "jsn_valid"})")),
            "x.jsonl:5: unknown checker type 'jsn_valid' (did you mean 'json_valid'?)");
  EXPECT_EQ(GenError(line(R"({"type": "regex", "patern": "a"})")),
            "x.jsonl:1: checker 2 (regex): unknown field 'patern' (did you mean 'pattern'?)");
  EXPECT_EQ(GenError(line(R"({"type": "regex"})")),
            "x.jsonl:1: checker 2 (regex): missing required field 'pattern'");
  const std::string bad_regex = GenError(line(R"({"type": "regex", "pattern": "[0-9"})"));
  EXPECT_EQ(
      bad_regex.rfind(
          "x.jsonl:1: checker 2 (regex): field 'pattern' \"[0-9\" is not a valid ECMAScript regex",
          0),
      0u)
      << bad_regex;
  const std::string non_ascii = GenError(line(R"({"type": "regex", "pattern": "是"})"));
  EXPECT_NE(non_ascii.find("non-ASCII"), std::string::npos) << non_ascii;
  EXPECT_EQ(
      GenError(line(R"({"type": "json_keys", "keys": {"a": "int"}})")),
      "x.jsonl:1: checker 2 (json_keys): field 'keys': the type of 'a' is 'int' (expected one of: "
      "string, integer, number, boolean, array, object, null)");
  EXPECT_EQ(
      GenError(line(R"({"type": "json_keys", "keys": {"a": "strng"}})")),
      "x.jsonl:1: checker 2 (json_keys): field 'keys': the type of 'a' is 'strng' (did you mean "
      "'string'?)");
  EXPECT_EQ(GenError(line(R"({"type": "json_values", "values": {}})")),
            "x.jsonl:1: checker 2 (json_values): field 'values' must be a non-empty object {name: "
            "value}, got an empty object");
  EXPECT_EQ(GenError(line(R"({"type": "max_chars", "value": "10"})")),
            "x.jsonl:1: checker 2 (max_chars): field 'value' must be an integer, got a string");
  EXPECT_EQ(
      GenError(line(R"({"type": "exact", "value": "a", "ignore_case": "no"})")),
      "x.jsonl:1: checker 2 (exact): field 'ignore_case' must be true or false, got a string");
  EXPECT_EQ(GenError(line(R"({"type": "contains", "value": ""})")),
            "x.jsonl:1: checker 2 (contains): field 'value' is empty");
  EXPECT_EQ(
      GenError(line(R"({"type": "exact", "value": "a", "role": "fromat"})")),
      "x.jsonl:1: checker 2 (exact): field 'role' must be \"format\" or \"task\", got 'fromat' "
      "(did you mean 'format'?)");
  EXPECT_EQ(GenError(line(R"("exact")")), "x.jsonl:1: checker 2: not a JSON object, got a string");
  EXPECT_EQ(
      GenError(R"({"id": "g", "prompt": "p", "checkers": []})"),
      "x.jsonl:1: field 'checkers' must be a non-empty array of checker objects, got an empty "
      "array");
}

TEST_F(DatasetFile, GenItemFieldProblems) {
  EXPECT_EQ(GenError(R"({"id": "g", "checkers": [{"type": "json_valid"}]})"),
            "x.jsonl:1: missing required field 'prompt'");
  EXPECT_EQ(
      GenError(
          R"({"id": "g", "prompt": "p", "max_tokens": 0, "checkers": [{"type": "json_valid"}]})"),
      "x.jsonl:1: field 'max_tokens' must be between 1 and 1048576, got 0");
  EXPECT_EQ(
      GenError(R"({"id": "g", "prompt": "p", "sytem": "s", "checkers": [{"type": "json_valid"}]})"),
      "x.jsonl:1: unknown field 'sytem' (did you mean 'system'?)");
  EXPECT_EQ(GenError(R"({"id": "g", "prompt": "p"})"),
            "x.jsonl:1: missing required field 'checkers'");
  // null is a value in a file: never the default of a field left out.
  EXPECT_EQ(GenError(R"({"id": "g", "prompt": "p", "max_tokens": null, )"
                     R"("checkers": [{"type": "json_valid"}]})"),
            "x.jsonl:1: field 'max_tokens' must be an integer, got null");
  EXPECT_EQ(GenError(R"({"id": "g", "prompt": "p", "checkers": [{"type": "json_valid", )"
                     R"("role": null}]})"),
            "x.jsonl:1: checker 1 (json_valid): field 'role' must be a string, got null");
}

}  // namespace
}  // namespace pipette::quality
