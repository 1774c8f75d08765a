#include "pipette/util/field_reader.h"

#include <gtest/gtest.h>

namespace pipette {
namespace {

using nlohmann::json;

TEST(FieldReader, ReadsTypedFieldsAndFallbacks) {
  const json j = {{"n", 5}, {"b", true}, {"s", "x"}, {"t", {1, 2, 3}}, {"o", {{"k", 1}}}};
  FieldReader f(j, "pp request");
  EXPECT_EQ(f.Int("n", 0, 10), 5);
  EXPECT_EQ(f.Int("missing", 0, 10, 7), 7);
  EXPECT_EQ(f.OptionalInt("missing", 0, 10), std::nullopt);
  EXPECT_TRUE(f.Bool("b"));
  EXPECT_FALSE(f.Bool("missing", false));
  EXPECT_EQ(f.String("s"), "x");
  EXPECT_EQ(f.OptionalString("missing"), std::nullopt);
  EXPECT_EQ(f.Tokens("t"), (TokenIds{1, 2, 3}));
  EXPECT_EQ(f.Object("o"), json({{"k", 1}}));
  EXPECT_EQ(f.OptionalObject("missing"), json::object());
  EXPECT_TRUE(f.ok()) << f.status().error().message;
  EXPECT_TRUE(f.status().ok());
}

TEST(FieldReader, AProblemNamesTheMessageAndTheField) {
  const json j = {{"tokens", "abc"}};
  FieldReader f(j, "pp request");
  (void)f.Tokens("tokens");
  EXPECT_EQ(f.status().error().message,
            "pp request: field 'tokens' must be an array of token ids, got a string");

  const json empty = json::object();  // the reader keeps a reference: a named message
  FieldReader missing(empty, "tokenize request");
  (void)missing.String("text");
  EXPECT_EQ(missing.status().error().message, "tokenize request: missing required field 'text'");
}

TEST(FieldReader, TheFirstProblemIsKept) {
  const json j = {{"a", "x"}, {"b", "y"}};
  FieldReader f(j, "tg request");
  (void)f.Int("a", 0, 1);
  (void)f.Int("b", 0, 1);
  EXPECT_EQ(f.status().error().message, "tg request: field 'a' must be an integer, got a string");
}

TEST(FieldReader, RangesAndTokenWidthsAreChecked) {
  const json j = {{"n", 0}, {"big", 1}, {"t", {1, 4294967296}}, {"u", 18446744073709551615u}};
  FieldReader f(j, "tg request");
  (void)f.Int("n", 1, 10);
  EXPECT_EQ(f.status().error().message, "tg request: field 'n' must be between 1 and 10, got 0");
  FieldReader g(j, "tg request");
  (void)g.Int("n", 1, FieldReader::kNoMax);
  EXPECT_EQ(g.status().error().message, "tg request: field 'n' must be at least 1, got 0");
  FieldReader h(j, "pp request");
  (void)h.Tokens("t");
  EXPECT_EQ(h.status().error().message,
            "pp request: field 't' holds 4294967296, which is not a 32-bit token id");
  FieldReader u(j, "pp request");
  (void)u.Int("u", 0, FieldReader::kNoMax);
  EXPECT_EQ(u.status().error().message,
            "pp request: field 'u' must be at least 0, got 18446744073709551615");
}

TEST(FieldReader, ArraysOfNumbersAreCheckedItemByItem) {
  const json j = {{"ends", {1, 2}}, {"lp", {-0.5, 1}}, {"bad", {1, 2.5}}, {"word", "x"}};
  FieldReader f(j, "tg response");
  EXPECT_EQ(f.Ints("ends"), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(f.Numbers("lp"), (std::vector<double>{-0.5, 1.0}));
  EXPECT_TRUE(f.ok()) << f.status().error().message;
  (void)f.Ints("bad");
  EXPECT_EQ(f.status().error().message,
            "tg response: field 'bad' must hold only integers, not a number with a fraction or "
            "exponent");
  FieldReader g(j, "score response");
  (void)g.Numbers("word");
  EXPECT_EQ(g.status().error().message,
            "score response: field 'word' must be an array of numbers, got a string");
}

TEST(FieldReader, NullIsAbsent) {
  const json j = {{"n", nullptr}};
  FieldReader f(j, "pp request");
  EXPECT_FALSE(f.Has("n"));
  EXPECT_EQ(f.Int("n", 0, 10, 3), 3);
  (void)f.Int("n", 0, 10);
  EXPECT_EQ(f.status().error().message, "pp request: missing required field 'n'");
}

TEST(FieldReader, NestedObjectsNameTheirPath) {
  const json j = {{"messages", {{{"role", "user"}, {"content", 5}}}}};
  FieldReader f(j, "chat request");
  const json messages = f.Array("messages");
  FieldReader m = f.Nested(messages[0], "messages[0]");
  EXPECT_EQ(m.String("role"), "user");
  (void)m.String("content");
  f.Take(m);
  EXPECT_EQ(f.status().error().message,
            "chat request: field 'messages[0].content' must be a string, got an integer");

  FieldReader g(j, "chat request");
  const json three = 3;
  FieldReader not_object = g.Nested(three, "messages[1]");
  g.Take(not_object);
  EXPECT_EQ(g.status().error().message,
            "chat request: field 'messages[1]' must be an object, got an integer");
}

TEST(FieldReader, AMessageThatIsNotAnObjectFailsAtOnce) {
  const json list = json::array();
  FieldReader f(list, "hello response");
  EXPECT_EQ(f.status().error().message, "hello response: not a JSON object, got an array");
  EXPECT_FALSE(f.Has("x"));
}

// A message's problem is the program's (exit code 1), with no file to name.
TEST(FieldReader, AMessageProblemIsTheProgramsAndNamesNoFile) {
  const json j = {{"n", "x"}};
  FieldReader f(j, "pp request");
  (void)f.Int("n", 0, 1);
  EXPECT_EQ(f.status().error().exit_code, 1);
  EXPECT_TRUE(f.status().error().context.file.empty());
}

// The same reader reads an object of an input file (a dataset's line): its problems are bad
// input (exit code 2) at the file and line, which stay the error's context.
TEST(FieldReader, AFilesObjectIsReadAtItsPlace) {
  const json j = {{"id", ""}, {"choices", {"a", 2}}, {"extra", 1}, {"answer", 1}};
  const Place line3{.file = "items.jsonl", .line = 3};
  FieldReader f(j, line3);
  EXPECT_EQ(f.FirstUnknown({"id", "choices", "answer"}), "extra");
  EXPECT_EQ(f.FirstUnknown({"id", "choices", "answer", "extra"}), std::nullopt);
  (void)f.Text("id");
  EXPECT_EQ(f.status().error().message, "items.jsonl:3: field 'id' is empty");
  EXPECT_EQ(f.status().error().exit_code, 2);
  EXPECT_EQ(f.status().error().context.file, "items.jsonl");
  EXPECT_EQ(f.status().error().context.line, 3);

  FieldReader g(j, line3);
  (void)g.Strings("choices");
  EXPECT_EQ(g.status().error().message,
            "items.jsonl:3: field 'choices[1]' must be a string, got an integer");

  // A part read on its own names itself; the whole takes its problem as it is.
  const json checker = {{"type", 5}};
  FieldReader part(checker, line3.Naming("checker 2"));
  (void)part.String("type");
  FieldReader whole(j, line3);
  whole.Take(part);
  EXPECT_EQ(whole.status().error().message,
            "items.jsonl:3: checker 2: field 'type' must be a string, got an integer");
  const json texts = {{"words", {"a", "b"}}};
  FieldReader h(texts, line3);
  EXPECT_EQ(h.Strings("words"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(h.ok());
}

// In a message null is absent (docs/protocol.md); in a file's object it is a value, refused
// where a field of another kind is read, so a dataset's `"source": null` is an error.
TEST(FieldReader, NullIsAbsentInAMessageButAValueInAFile) {
  const json j = {{"source", nullptr}};
  FieldReader message(j, "pp request");
  EXPECT_FALSE(message.Has("source"));
  EXPECT_EQ(message.String("source", "x"), "x");
  EXPECT_TRUE(message.ok());
  FieldReader file(j, Place{.file = "d.jsonl", .line = 2});
  EXPECT_TRUE(file.Has("source"));
  (void)file.String("source", "x");
  EXPECT_EQ(file.status().error().message, "d.jsonl:2: field 'source' must be a string, got null");
  const json nested = {{"o", {{"n", nullptr}}}};
  FieldReader outer(nested, Place{.file = "d.jsonl", .line = 2});
  FieldReader inner = outer.Nested(nested["o"], "o");
  (void)inner.OptionalInt("n", 0, 1);
  EXPECT_EQ(inner.status().error().message, "d.jsonl:2: field 'o.n' must be an integer, got null");
}

// A place renders as every error of Pipette does (util/result.h Describe), whatever it names.
TEST(Place, RendersAsDescribeAndKeepsItsContext) {
  const Place p{.file = "ex.yaml", .line = 4, .column = 7};
  EXPECT_EQ(p.Fail("bad").message, "ex.yaml:4:7: bad");
  EXPECT_EQ(p.Fail("bad").message, Describe(p.Fail("bad").context, "bad"));
  EXPECT_EQ(p.Naming("ready:").Fail("bad").message, "ex.yaml:4:7: ready:: bad");
  EXPECT_EQ(Place{.file = "ex.yaml"}.Fail("empty").message, "ex.yaml: empty");
  EXPECT_FALSE(Place{.file = "ex.yaml"}.Known());
  EXPECT_EQ(Place{.what = "hello response"}.Fail("late", 1).message, "hello response: late");
}

}  // namespace
}  // namespace pipette
