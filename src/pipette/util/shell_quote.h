// Words for a POSIX shell that the shell reads back exactly: what reaches a remote device's shell
// (ssh's and adb's remote command is one string that the device's `sh -c` splits) is quoted here,
// whatever it holds — spaces, quotes, `$`, backticks, `;`, newlines.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pipette {

// `word` as one shell word: in single quotes, a single quote written as '\'' (the only
// character single quotes cannot hold). A word of only safe characters (letters, digits and
// `_-./:,+@%`) is left bare, so commands stay readable; `=` is quoted, so that a first word is
// never read as an assignment.
std::string ShellQuote(std::string_view word);

// The words quoted and joined by spaces: a command line the shell splits back into `words`.
std::string ShellJoin(const std::vector<std::string>& words);

}  // namespace pipette
