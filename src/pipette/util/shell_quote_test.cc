#include "pipette/util/shell_quote.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace pipette {
namespace {

TEST(ShellQuote, LeavesSafeWordsBareAndQuotesTheRest) {
  EXPECT_EQ(ShellQuote("models/x.gguf"), "models/x.gguf");
  EXPECT_EQ(ShellQuote(""), "''");
  EXPECT_EQ(ShellQuote("a b"), "'a b'");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellJoin({"ls", "-l", "my file"}), "ls -l 'my file'");
}

// The words that break naive quoting, read back by a real `sh`: each arrives as one argument,
// byte for byte, and nothing in it runs.
TEST(ShellQuote, AShellReadsHostileWordsBackExactly) {
  const std::vector<std::string> hostile = {"model with spaces.gguf",
                                            "it's \"quoted\"",
                                            "$HOME and ${PATH}",
                                            "`touch /tmp/pwned`",
                                            "$(touch /tmp/pwned)",
                                            "a; rm -rf /nothing",
                                            "line one\nline two",
                                            "tab\there",
                                            "back\\slash",
                                            "*?[glob]",
                                            "-n",
                                            "'",
                                            "''",
                                            "!bang",
                                            "~user",
                                            "#comment"};
  for (const std::string& word : hostile) {
    // printf %s\0 of the word, through sh -c: the bytes that come back are the word.
    const std::string cmd = "sh -c " + ShellQuote("printf '%s' " + ShellQuote(word)) + " 2>&1";
    FILE* p = ::popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[256];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    const int status = ::pclose(p);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << word;
    EXPECT_EQ(out, word);
  }
}

}  // namespace
}  // namespace pipette
