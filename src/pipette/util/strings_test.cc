#include "pipette/util/strings.h"

#include <gtest/gtest.h>

namespace pipette {
namespace {

TEST(Strings, TrimTakesTheCLocalesWhiteSpaceFromBothEnds) {
  EXPECT_EQ(Trim(" \t\v\f\r\n a b \n\v"), "a b");
  EXPECT_EQ(Trim("ab"), "ab");
  EXPECT_EQ(Trim(" \v "), "");
  EXPECT_EQ(Trim(""), "");
}

TEST(Strings, EditDistanceCountsSwapsAsOne) {
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("jsno", "json"), 1u);
  EXPECT_EQ(EditDistance("same", "same"), 0u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance("ca", "abc"), 3u);  // optimal string alignment: no edit of a swap
  EXPECT_EQ(EditDistance("peak_rs", "peak_rss"), 1u);
  EXPECT_EQ(EditDistance("tg128", "tg1289"), 1u);
}

TEST(Strings, SuggestsOnlyLikelyTypos) {
  const std::vector<std::string> keys = {"models", "tests", "repetitions", "warmup"};
  EXPECT_EQ(NearestName("repetition", keys), "repetitions");
  EXPECT_EQ(NearestName("warmpu", keys), "warmup");
  EXPECT_EQ(NearestName("colour", keys), std::nullopt);
  EXPECT_EQ(DidYouMean("test", keys), " (did you mean 'tests'?)");
  EXPECT_EQ(DidYouMean("zzz", keys), "");
  // A word far longer than every candidate is no typo of one, whatever its letters.
  EXPECT_EQ(NearestName(std::string(1 << 20, 'x') + "tests", keys), std::nullopt);
  EXPECT_EQ(NearestName("repetitionsss", keys), "repetitions");  // 2 edits of 13: still a typo
}

TEST(Strings, MarkdownTextCannotBreakATable) {
  EXPECT_EQ(MarkdownCell("smollm2"), "smollm2");
  EXPECT_EQ(MarkdownCell("a|b"), "a\\|b");
  EXPECT_EQ(MarkdownCell("a\\|b"), "a\\\\\\|b");  // the backslash stays a backslash
  EXPECT_EQ(MarkdownCell("one\ntwo\r\nthree\rfour"), "one two three four");
  EXPECT_EQ(MarkdownLine("died:\n---\n| x |"), "died: --- \\| x \\|");
  EXPECT_EQ(MarkdownLine("blk\\.0\\."), "blk\\.0\\.");  // outside a table, backslashes are text
}

TEST(Strings, HumanSizesAndDurations) {
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(98362432), "93.81 MiB");
  EXPECT_EQ(FormatBytes(3.5 * 1024 * 1024 * 1024), "3.50 GiB");
  EXPECT_EQ(FormatDuration(12.34), "12.3s");
  EXPECT_EQ(FormatDuration(65), "1m 05s");
  EXPECT_EQ(FormatDuration(7322), "2h 02m");
}

TEST(Strings, SizesAsPeopleWriteThem) {
  EXPECT_EQ(ParseBytes("4096"), 4096);
  EXPECT_EQ(ParseBytes("512MiB"), int64_t{512} << 20);
  EXPECT_EQ(ParseBytes("1.5 GiB"), int64_t{3} << 29);
  EXPECT_EQ(ParseBytes("800MB"), int64_t{800000000});
  EXPECT_EQ(ParseBytes("2kb"), 2000);
  EXPECT_EQ(ParseBytes(" 64 b "), 64);
  EXPECT_FALSE(ParseBytes(""));
  EXPECT_FALSE(ParseBytes("MiB"));
  EXPECT_FALSE(ParseBytes("-1GiB"));
  EXPECT_FALSE(ParseBytes("12 parsecs"));
  EXPECT_FALSE(ParseBytes("9e30"));
}

}  // namespace
}  // namespace pipette

namespace pipette {
namespace {

TEST(OneOf, ListsChoicesWithOrBeforeTheLast) {
  EXPECT_EQ(OneOf({}), "");
  EXPECT_EQ(OneOf({"md"}), "md");
  EXPECT_EQ(OneOf({"md", "json"}), "md or json");
  EXPECT_EQ(OneOf({"md", "json", "csv"}), "md, json or csv");
}

}  // namespace
}  // namespace pipette
