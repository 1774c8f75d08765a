#include "pipette/util/utf8.h"

#include <gtest/gtest.h>

namespace pipette {
namespace {

TEST(Utf8, WellFormedTextPasses) {
  for (const char* ok : {"", "plain ASCII\n", "caf\xC3\xA9", "\xE2\x82\xAC 5", "\xF0\x9F\x98\x80",
                         "\xED\x9F\xBF", "\xF4\x8F\xBF\xBF"}) {
    EXPECT_EQ(FirstInvalidUtf8(ok), std::nullopt) << ok;
  }
}

TEST(Utf8, TheFirstBadByteIsFound) {
  struct Case {
    std::string text;
    size_t at;
  } cases[] = {
      {"ab\xFF", 2},                    // never in UTF-8
      {"a\x80", 1},                     // a continuation without a lead
      {"\xC3", 0},                      // cut short at the end
      {"\xC3(", 0},                     // a lead without its continuation
      {"\xC0\xAF", 0},                  // overlong
      {"\xE0\x80\xAF", 0},              // overlong
      {"\xED\xA0\x80", 0},              // a surrogate
      {"\xF4\x90\x80\x80", 0},          // past U+10FFFF
      {"ok\n\xE2\x82\xAC\xE2\x82", 6},  // the second sequence is cut short
  };
  for (const Case& k : cases) EXPECT_EQ(FirstInvalidUtf8(k.text), k.at) << k.text;
}

// Each byte that starts no well-formed sequence becomes one U+FFFD; what is well-formed around it
// is kept, and well-formed text comes back as it was.
TEST(Utf8, ValidUtf8ReplacesEachBadByte) {
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(ValidUtf8("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_EQ(ValidUtf8(""), "");
  EXPECT_EQ(ValidUtf8("caf\xE9"), "caf" + r);                                   // Latin-1
  EXPECT_EQ(ValidUtf8("tail \xE2\x82"), "tail " + r + r);                       // cut short
  EXPECT_EQ(ValidUtf8("\x80\xE2\x82\xAC\xFF!"), r + "\xE2\x82\xAC" + r + "!");  // around a €
  EXPECT_EQ(ValidUtf8("\xED\xA0\x80"), r + r + r);                              // a surrogate
  for (const char* bad : {"ab\xFF", "\xC3(", "\xF4\x90\x80\x80 x"}) {
    EXPECT_EQ(FirstInvalidUtf8(ValidUtf8(bad)), std::nullopt) << bad;
  }
}

TEST(Utf8, TheErrorNamesTheFileLineColumnAndOffset) {
  const Error e = NotUtf8Error("c.txt", "ab\ncd\xFF", 5);
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_EQ(e.message,
            "c.txt:2:3: not UTF-8: byte 0xFF (offset 5 of the file) starts no well-formed UTF-8 "
            "sequence; save the text as UTF-8");
  // Part of a file: its line and offset counted from where the part starts.
  const std::string part = NotUtf8Error("d.jsonl", "{\"q\": \"\x80\"}", 7, 4, 100).message;
  EXPECT_EQ(part.rfind("d.jsonl:4:8: not UTF-8: byte 0x80 (offset 107 of the file) ", 0), 0u)
      << part;
}

}  // namespace
}  // namespace pipette
