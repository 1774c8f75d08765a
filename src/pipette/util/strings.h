#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipette {

// `s` without the white space (C locale: space, \t, \n, \v, \f, \r) at either end.
std::string_view Trim(std::string_view s);

// Levenshtein distance between two strings.
size_t EditDistance(std::string_view a, std::string_view b);
// The candidate nearest to `word` if it is close enough to be a likely typo, for "did you mean".
std::optional<std::string> NearestName(std::string_view word,
                                       const std::vector<std::string>& candidates);
// " (did you mean 'x'?)" or "".
std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates);
// "a, b or c"; "a or b"; "a"; "" for none: choices, as a message lists them.
std::string OneOf(const std::vector<std::string>& words);

// Text for one cell of a Markdown table: '|' and '\' escaped with '\', each line break a space,
// so that no value (a model named "a|b", an error over two lines) can break the table.
std::string MarkdownCell(std::string_view text);
// Text for one line of Markdown outside a table: each line break a space (a line of its own could
// start a heading or a table), '|' escaped.
std::string MarkdownLine(std::string_view text);

// Human-readable sizes and durations for tables.
// ASCII letters lower-cased; other bytes as they are.
std::string ToLower(std::string_view text);

std::string FormatBytes(double bytes);  // "98.36 MiB"
// A size as people write it: "512MiB", "1.5 GiB", "800MB", "4096" (bytes). KiB/MiB/GiB/TiB are
// powers of 1024, kB/MB/GB/TB of 1000, B or nothing bytes; units in any case. nullopt when `text`
// is not one, negative, or past 2^62.
std::optional<int64_t> ParseBytes(std::string_view text);
std::string FormatDuration(double seconds);  // "1m 05s", "12.3s"

}  // namespace pipette
