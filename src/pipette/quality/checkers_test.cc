#include "pipette/quality/checkers.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "pipette/testing/paths.h"

namespace pipette::quality {
namespace {

using nlohmann::json;

const std::string kSourceDir = pipette::testing::SourceDir();

GenChecker Make(const char* spec_json) {
  GenChecker c;
  c.spec = json::parse(spec_json);
  c.type = c.spec.at("type").get<std::string>();
  c.role = c.spec.value("role", DefaultCheckerRole(c.type));
  return c;
}

bool Passes(const char* spec_json, std::string_view output) {
  return RunChecker(Make(spec_json), output).passed;
}

TEST(Checker, TrimsAsciiWhitespaceOnly) {
  EXPECT_TRUE(Passes(R"({"type": "exact", "value": "yes"})", "  \t\r\n yes \n\v\f"));
  // U+3000 IDEOGRAPHIC SPACE is not trimmed.
  EXPECT_FALSE(Passes(R"({"type": "exact", "value": "x"})", "\xE3\x80\x80x"));
}

TEST(Checker, Exact) {
  const char* kSpec = R"({"type": "exact", "value": "2021-03-05", "ignore_case": false})";
  EXPECT_TRUE(Passes(kSpec, "2021-03-05"));
  EXPECT_TRUE(Passes(kSpec, "  2021-03-05\n"));
  EXPECT_FALSE(Passes(kSpec, "2021-03-05."));
  EXPECT_FALSE(Passes(kSpec, "2021-3-5"));
  EXPECT_FALSE(Passes(kSpec, ""));
  CheckResult r = RunChecker(Make(kSpec), "2021-3-5\n");
  EXPECT_EQ(r.detail, R"(expected "2021-03-05", got "2021-3-5")");

  EXPECT_FALSE(Passes(R"({"type": "exact", "value": "Paris", "ignore_case": false})", "paris"));
  EXPECT_TRUE(Passes(R"({"type": "exact", "value": "Paris", "ignore_case": true})", "PARIS"));
  EXPECT_TRUE(Passes(R"({"type": "exact", "value": "Paris"})", "Paris"));  // default: case matters
  EXPECT_FALSE(Passes(R"({"type": "exact", "value": "Paris"})", "paris"));
  // Case folding is ASCII-only: É and é differ even with ignore_case.
  EXPECT_FALSE(Passes(R"({"type": "exact", "value": "É", "ignore_case": true})", "é"));
  EXPECT_TRUE(Passes(R"({"type": "exact", "value": "北京", "ignore_case": false})", "北京\n"));
  // Whitespace inside the output is kept.
  EXPECT_FALSE(Passes(R"({"type": "exact", "value": "a b", "ignore_case": false})", "a  b"));
}

TEST(Checker, Contains) {
  const char* kSpec = R"({"type": "contains", "value": "Paris", "ignore_case": false})";
  EXPECT_TRUE(Passes(kSpec, "The capital is Paris."));
  EXPECT_FALSE(Passes(kSpec, "The capital is paris."));
  EXPECT_TRUE(
      Passes(R"({"type": "contains", "value": "paris", "ignore_case": true})", "PARIS, France"));
  EXPECT_TRUE(Passes(R"({"type": "contains", "value": ","})", "1,2"));
  EXPECT_FALSE(Passes(R"({"type": "contains", "value": ","})", "1、2"));
  CheckResult r = RunChecker(Make(kSpec), "Lyon");
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.detail.find("does not contain \"Paris\""), std::string::npos) << r.detail;
}

TEST(Checker, RegexMatchesTheWholeTrimmedOutput) {
  const char* kDate = R"({"type": "regex", "pattern": "[0-9]{4}-[0-9]{2}-[0-9]{2}"})";
  EXPECT_TRUE(Passes(kDate, "2022-08-09"));
  EXPECT_TRUE(Passes(kDate, "\n2022-08-09  \n"));
  EXPECT_FALSE(Passes(kDate, "2022-8-9"));
  EXPECT_FALSE(Passes(kDate, "Date: 2022-08-09"));  // whole output, not a search
  EXPECT_FALSE(Passes(kDate, "2022-08-09."));
  EXPECT_TRUE(Passes(R"({"type": "regex", "pattern": "^(yes|no)$"})", "no"));
  EXPECT_TRUE(Passes(R"({"type": "regex", "pattern": "[0-9]+(, ?[0-9]+)*"})", "2, 4,6"));
  EXPECT_TRUE(Passes(R"({"type": "regex", "pattern": "[A-Z ]+"})", "HELLO WORLD"));
  EXPECT_FALSE(Passes(R"({"type": "regex", "pattern": "[A-Z ]+"})", "Hello"));
  // Multi-line outputs: the whole text must match, '.' does not cross newlines.
  EXPECT_FALSE(Passes(R"({"type": "regex", "pattern": "Answer: .*"})", "Answer: 4\nmore"));
  EXPECT_TRUE(Passes(R"({"type": "regex", "pattern": "Answer: [0-9]+"})", "Answer: 42"));
  CheckResult bad = RunChecker(Make(R"({"type": "regex", "pattern": "[0-9"})"), "1");
  EXPECT_FALSE(bad.passed);
  EXPECT_NE(bad.detail.find("could not be evaluated"), std::string::npos) << bad.detail;
}

TEST(Checker, JsonValidIsStrict) {
  const char* kSpec = R"({"type": "json_valid"})";
  EXPECT_TRUE(Passes(kSpec, R"({"a": 1})"));
  EXPECT_TRUE(Passes(kSpec, "  {\"a\": [1, 2.5, null, true]}\n"));
  EXPECT_TRUE(Passes(kSpec, "34"));  // any JSON value
  EXPECT_TRUE(Passes(kSpec, R"("text")"));
  EXPECT_FALSE(Passes(kSpec, "```json\n{\"a\": 1}\n```"));
  EXPECT_FALSE(Passes(kSpec, R"(Here it is: {"a": 1})"));
  EXPECT_FALSE(Passes(kSpec, R"({"a": 1} thanks)"));
  EXPECT_FALSE(Passes(kSpec, R"({"a": 1,})"));        // trailing comma
  EXPECT_FALSE(Passes(kSpec, R"({'a': 1})"));         // single quotes
  EXPECT_FALSE(Passes(kSpec, R"({a: 1})"));           // bare key
  EXPECT_FALSE(Passes(kSpec, "{\"a\": 1} // note"));  // comment
  EXPECT_FALSE(Passes(kSpec, R"({"a": NaN})"));
  EXPECT_FALSE(Passes(kSpec, "1e999"));  // overflows a double
  EXPECT_FALSE(Passes(kSpec, ""));
  EXPECT_FALSE(Passes(kSpec, "{\"a\": \"\xff\"}"));  // invalid UTF-8
  CheckResult r = RunChecker(Make(kSpec), "{");
  EXPECT_EQ(r.detail.rfind("output is not valid JSON: ", 0), 0u) << r.detail;
  EXPECT_EQ(r.detail.find("json.exception"), std::string::npos) << r.detail;
}

TEST(Checker, JsonKeysTypes) {
  const char* kSpec =
      R"({"type": "json_keys", "keys": {"s": "string", "i": "integer", "n": "number",)"
      R"( "b": "boolean", "a": "array", "o": "object", "z": "null"}})";
  const char* kGood =
      R"({"s": "x", "i": -3, "n": 2.5, "b": false, "a": [], "o": {}, "z": null, "extra": 1})";
  EXPECT_TRUE(Passes(kSpec, kGood));
  const char* kInt = R"({"type": "json_keys", "keys": {"age": "integer"}})";
  EXPECT_TRUE(Passes(kInt, R"({"age": 34})"));
  EXPECT_TRUE(Passes(kInt, R"({"age": 0})"));
  EXPECT_FALSE(Passes(kInt, R"({"age": 34.0})"));
  EXPECT_FALSE(Passes(kInt, R"({"age": 3e1})"));
  EXPECT_FALSE(Passes(kInt, R"({"age": "34"})"));
  EXPECT_FALSE(Passes(kInt, R"({"age": true})"));
  EXPECT_FALSE(Passes(kInt, R"({"Age": 34})"));    // key names are case-sensitive
  EXPECT_FALSE(Passes(kInt, R"([{"age": 34}])"));  // top level must be an object
  EXPECT_FALSE(Passes(kInt, "```json\n{\"age\": 34}\n```"));
  const char* kNum = R"({"type": "json_keys", "keys": {"price": "number"}})";
  EXPECT_TRUE(Passes(kNum, R"({"price": 24.99})"));
  EXPECT_TRUE(Passes(kNum, R"({"price": 25})"));  // integers are numbers
  EXPECT_TRUE(Passes(kNum, R"({"price": 2.5e1})"));
  EXPECT_FALSE(Passes(kNum, R"({"price": false})"));  // booleans are not
  EXPECT_FALSE(Passes(kNum, R"({"price": "24.99"})"));
  EXPECT_FALSE(Passes(kNum, R"({"price": null})"));
  EXPECT_FALSE(Passes(R"({"type": "json_keys", "keys": {"b": "boolean"}})", R"({"b": 1})"));
  EXPECT_FALSE(Passes(R"({"type": "json_keys", "keys": {"z": "null"}})", R"({"z": "null"})"));
  EXPECT_FALSE(Passes(R"({"type": "json_keys", "keys": {"z": "null"}})", R"({})"));

  EXPECT_EQ(RunChecker(Make(kInt), R"({"age": "34"})").detail,
            R"(key 'age' is a string ("34"), expected integer)");
  EXPECT_EQ(RunChecker(Make(kInt), R"({"name": "x"})").detail, "missing key 'age'");
  EXPECT_EQ(RunChecker(Make(kInt), "[1]").detail, "output is an array, not a JSON object");
}

TEST(Checker, JsonValues) {
  const char* kSpec =
      R"({"type": "json_values", "values": {"name": "Maria Lopez", "age": 34, "price": 24.99,)"
      R"( "ok": true, "none": null, "tags": ["a", "b"], "dim": {"w": 2, "h": 3}}})";
  const char* kGood =
      R"({"name": "Maria Lopez", "age": 34, "price": 24.99, "ok": true, "none": null,)"
      R"( "tags": ["a", "b"], "dim": {"h": 3, "w": 2}, "extra": "ignored"})";
  EXPECT_TRUE(Passes(kSpec, kGood));
  const char* kAge = R"({"type": "json_values", "values": {"age": 34}})";
  EXPECT_TRUE(Passes(kAge, R"({"age": 34.0})"));  // numbers compare by value
  EXPECT_FALSE(Passes(kAge, R"({"age": "34"})"));
  EXPECT_FALSE(Passes(kAge, R"({"age": 35})"));
  EXPECT_FALSE(Passes(kAge, R"({"years": 34})"));
  EXPECT_FALSE(Passes(R"({"type": "json_values", "values": {"ok": true}})", R"({"ok": 1})"));
  EXPECT_FALSE(Passes(R"({"type": "json_values", "values": {"z": null}})", R"({"z": 0})"));
  EXPECT_FALSE(Passes(R"({"type": "json_values", "values": {"z": null}})", R"({"z": false})"));
  EXPECT_FALSE(Passes(R"({"type": "json_values", "values": {"name": "Maria Lopez"}})",
                      R"({"name": "maria lopez"})"));  // case-sensitive
  EXPECT_FALSE(Passes(R"({"type": "json_values", "values": {"name": "Maria Lopez"}})",
                      R"({"name": "Maria Lopez "})"));
  const char* kTags = R"({"type": "json_values", "values": {"tags": ["a", "b"]}})";
  EXPECT_FALSE(Passes(kTags, R"({"tags": ["b", "a"]})"));  // order matters
  EXPECT_FALSE(Passes(kTags, R"({"tags": ["a", "b", "c"]})"));
  const char* kDim = R"({"type": "json_values", "values": {"dim": {"w": 2}}})";
  EXPECT_FALSE(Passes(kDim, R"({"dim": {"w": 2, "h": 3}})"));  // nested: same key set
  EXPECT_TRUE(Passes(kDim, R"({"dim": {"w": 2.0}})"));
  EXPECT_EQ(RunChecker(Make(kAge), R"({"age": "34"})").detail, R"(key 'age' is "34", expected 34)");
  EXPECT_FALSE(Passes(kAge, "age: 34"));
}

TEST(Checker, MaxCharsCountsCodePoints) {
  const char* kTwo = R"({"type": "max_chars", "value": 2})";
  EXPECT_TRUE(Passes(kTwo, "ab"));
  EXPECT_TRUE(Passes(kTwo, "  ab \n"));  // counted after trimming
  EXPECT_FALSE(Passes(kTwo, "abc"));
  EXPECT_TRUE(Passes(kTwo, "北京"));  // 6 bytes, 2 characters
  EXPECT_FALSE(Passes(kTwo, "北京市"));
  EXPECT_TRUE(Passes(kTwo, ""));
  EXPECT_EQ(RunChecker(Make(kTwo), "北京市").detail, "output is 3 characters, at most 2 allowed");
}

TEST(Checker, DetailsQuoteLongOutputsBriefly) {
  const std::string long_output(500, 'x');
  CheckResult r = RunChecker(Make(R"({"type": "exact", "value": "y"})"), long_output);
  EXPECT_FALSE(r.passed);
  EXPECT_LT(r.detail.size(), 200u);
  EXPECT_NE(r.detail.find("..."), std::string::npos);
  // Invalid UTF-8 in an output does not break the detail.
  CheckResult u = RunChecker(Make(R"({"type": "exact", "value": "y"})"), "\xff\xfe");
  EXPECT_FALSE(u.passed);
  EXPECT_FALSE(u.detail.empty());
}

TEST(Checker, RunawayOutputsFailInsteadOfCrashing) {
  // Deep nesting: refused before parsing (dumping it into a detail would recurse).
  const std::string deep = "{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  CheckResult keys = RunChecker(Make(R"({"type": "json_keys", "keys": {"a": "string"}})"), deep);
  EXPECT_FALSE(keys.passed);
  EXPECT_NE(keys.detail.find("nested more than 512 levels deep"), std::string::npos);
  EXPECT_FALSE(Passes(R"({"type": "json_valid"})", deep));
  const std::string ok_depth = std::string(512, '[') + std::string(512, ']');
  EXPECT_TRUE(Passes(R"({"type": "json_valid"})", ok_depth));
  EXPECT_TRUE(Passes(R"({"type": "json_valid"})", R"(["[[[[", "\"[[["])"));  // brackets in strings
  // Long outputs: std::regex would overflow the stack on ~20 KB.
  const char* kRegex = R"({"type": "regex", "pattern": "(a|b)*"})";
  EXPECT_TRUE(Passes(kRegex, std::string(4096, 'a')));
  CheckResult long_regex = RunChecker(Make(kRegex), std::string(100000, 'a'));
  EXPECT_FALSE(long_regex.passed);
  EXPECT_EQ(long_regex.detail,
            "output is 100000 bytes; regexes are only matched on outputs of up to 4096");
}

TEST(Checker, BrokenSpecsFailWithoutThrowing) {
  GenChecker unknown;
  unknown.type = "nope";
  EXPECT_FALSE(RunChecker(unknown, "x").passed);
  GenChecker no_value;
  no_value.type = "exact";
  no_value.spec = json::object();
  EXPECT_EQ(RunChecker(no_value, "x").detail, "checker has no string 'value'");
}

TEST(Checker, JudgeSplitsFormatAndTask) {
  GenItem item;
  item.checkers = {Make(R"({"type": "regex", "pattern": "[0-9]+"})"),
                   Make(R"({"type": "exact", "value": "42", "ignore_case": false})")};
  Verdict right = Judge(item, "42\n");
  EXPECT_TRUE(right.format_ok);
  EXPECT_TRUE(right.task_ok);
  ASSERT_EQ(right.results.size(), 2u);
  EXPECT_TRUE(right.results[0].detail.empty());
  Verdict wrong = Judge(item, "41");
  EXPECT_TRUE(wrong.format_ok);
  EXPECT_FALSE(wrong.task_ok);
  EXPECT_TRUE(wrong.results[0].passed);
  EXPECT_FALSE(wrong.results[1].passed);
  Verdict unformatted = Judge(item, "42.");
  EXPECT_FALSE(unformatted.format_ok);
  EXPECT_FALSE(unformatted.task_ok);
  // An empty role means the type's default: regex is a format checker.
  item.checkers[0].role.clear();
  EXPECT_FALSE(Judge(item, "x").format_ok);
  // Role override: a task-role regex does not affect format_ok.
  item.checkers[0] = Make(R"({"type": "regex", "pattern": "[0-9]+", "role": "task"})");
  EXPECT_TRUE(Judge(item, "x").format_ok);
}

// The reference outputs of datasets/gen: every good one passes everything, every bad one fails
// at least one format checker.
TEST(CheckerReference, ShippedGoodAndBadOutputs) {
  Result<GenDataset> gen = LoadGenDataset(kSourceDir + "/datasets/gen/pipette-gen-v1.jsonl");
  ASSERT_TRUE(gen.ok()) << gen.error().message;
  std::map<std::string, const GenItem*> by_id;
  for (const GenItem& item : gen->items) by_id[item.id] = &item;

  std::ifstream in(kSourceDir + "/datasets/gen/pipette-gen-v1.reference.jsonl");
  ASSERT_TRUE(in) << "cannot open the reference file";
  std::string line;
  size_t n = 0;
  std::map<std::string, int> type_seen;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const json ref = json::parse(line);
    const std::string id = ref.at("id").get<std::string>();
    ASSERT_TRUE(by_id.count(id)) << id;
    const GenItem& item = *by_id[id];
    ++n;
    const std::string good = ref.at("good").get<std::string>();
    const std::string bad = ref.at("bad").get<std::string>();
    Verdict g = Judge(item, good);
    for (size_t i = 0; i < g.results.size(); ++i) {
      EXPECT_TRUE(g.results[i].passed) << id << " good, checker " << i + 1 << " ("
                                       << item.checkers[i].type << "): " << g.results[i].detail;
      ++type_seen[item.checkers[i].type];
    }
    EXPECT_TRUE(g.format_ok) << id;
    EXPECT_TRUE(g.task_ok) << id;
    Verdict b = Judge(item, bad);
    EXPECT_FALSE(b.format_ok) << id << " bad output passed every format checker: " << bad;
    EXPECT_FALSE(b.task_ok) << id;
  }
  EXPECT_EQ(n, gen->items.size());
  EXPECT_EQ(type_seen.size(), 7u);  // every checker type is exercised
}

}  // namespace
}  // namespace pipette::quality
