#include "pipette/protocol/fields.h"

#include <gtest/gtest.h>

namespace pipette::protocol {
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
  EXPECT_EQ(f.status().error().message, "pp request: field 'tokens' must be an array of token ids");

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
  EXPECT_EQ(f.status().error().message, "tg request: field 'a' must be an integer");
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
  EXPECT_EQ(u.status().error().message, "pp request: field 'u' is out of range");
}

TEST(FieldReader, ArraysOfNumbersAreCheckedItemByItem) {
  const json j = {{"ends", {1, 2}}, {"lp", {-0.5, 1}}, {"bad", {1, 2.5}}, {"word", "x"}};
  FieldReader f(j, "tg response");
  EXPECT_EQ(f.Ints("ends"), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(f.Numbers("lp"), (std::vector<double>{-0.5, 1.0}));
  EXPECT_TRUE(f.ok()) << f.status().error().message;
  (void)f.Ints("bad");
  EXPECT_EQ(f.status().error().message, "tg response: field 'bad' must hold only integers");
  FieldReader g(j, "score response");
  (void)g.Numbers("word");
  EXPECT_EQ(g.status().error().message, "score response: field 'word' must be an array of numbers");
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
            "chat request: field 'messages[0].content' must be a string");

  FieldReader g(j, "chat request");
  const json three = 3;
  FieldReader not_object = g.Nested(three, "messages[1]");
  g.Take(not_object);
  EXPECT_EQ(g.status().error().message, "chat request: field 'messages[1]' must be an object");
}

TEST(FieldReader, AMessageThatIsNotAnObjectFailsAtOnce) {
  const json list = json::array();
  FieldReader f(list, "hello response");
  EXPECT_EQ(f.status().error().message, "hello response is not a JSON object");
  EXPECT_FALSE(f.Has("x"));
}

}  // namespace
}  // namespace pipette::protocol
