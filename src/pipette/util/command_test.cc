#include "pipette/util/command.h"

#include <gtest/gtest.h>

#include <csignal>

namespace pipette {
namespace {

TEST(ProcessCommandRunner, GivesExitCodeOutputErrorAndStderrLines) {
  ProcessCommandRunner runner;
  std::vector<std::string> lines;
  Command c{.argv = {"/bin/sh", "-c", "echo out; echo \"$PIPETTE_X\" >&2; echo two >&2; exit 3"},
            .env = {{"PIPETTE_X", "from env"}},
            .timeout_s = 60,
            .on_stderr_line = [&](const std::string& l) { lines.push_back(l); }};
  auto r = runner.Run(c);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_FALSE(r->timed_out);
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "from env\ntwo\n");
  EXPECT_EQ(lines, (std::vector<std::string>{"from env", "two"}));
}

TEST(ProcessCommandRunner, AProgramThatCannotStartIsAnError) {
  ProcessCommandRunner runner;
  auto r = runner.Run({.argv = {"/no/such/program"}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("cannot start /no/such/program"), std::string::npos);
}

TEST(ProcessCommandRunner, KillsAProgramPastItsTime) {
  ProcessCommandRunner runner;
  auto r = runner.Run({.argv = {"/bin/sleep", "30"}, .timeout_s = 0.2});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->timed_out);
  EXPECT_EQ(r->exit_code, -1);
}

TEST(ProcessCommandRunner, KillsAProgramPastItsOutputLimit) {
  ProcessCommandRunner runner;
  auto r = runner.Run({.argv = {"/usr/bin/yes"}, .timeout_s = 60, .max_output_bytes = 100000});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->output_limited);
  EXPECT_FALSE(r->timed_out);
  EXPECT_EQ(r->exit_code, -1);
  EXPECT_EQ(r->signal, SIGKILL);
  EXPECT_GT(r->out.size(), 100000u);
  EXPECT_LT(r->out.size(), 100000u + 4096u);  // read a pipe's chunk at a time
}

TEST(ProcessCommandRunner, ReadsStandardInputFromAFile) {
  ProcessCommandRunner runner;
  auto r = runner.Run({.argv = {"/bin/sh", "-c", "wc -c"}, .stdin_path = "/proc/self/exe"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_GT(std::stoll(r->out), 0);  // the bytes of a file, read through standard input
  auto none = runner.Run({.argv = {"/bin/sh", "-c", "wc -c"}});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(std::stoll(none->out), 0);  // /dev/null
}

}  // namespace
}  // namespace pipette
