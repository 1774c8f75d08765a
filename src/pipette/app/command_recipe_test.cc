// The recipe of docs/architecture.md "Adding a command": a made-up command, `hello` (a test
// fixture, in this test's command list only: a required --name, a --shout flag, exit 1 for the
// name "nobody"), is listed by --help, suggested for a misspelling, has its arguments checked
// (exit 2) and runs with what they say, with nothing outside this file written for it.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "pipette/app/cli.h"

namespace pipette::app {
namespace {

struct HelloArgs {
  std::string name;
  bool shout = false;
};

// The made-up command: its whole entry. `said`: what it said, for the test to read.
Command Hello(std::string* said) {
  return {"hello", "Say hello to someone", [said](CLI::App& c) -> CommandRun {
            auto a = std::make_shared<HelloArgs>();
            c.add_option("--name", a->name, "who to greet")->required();
            c.add_flag("--shout", a->shout, "in capitals");
            return [a, said](const CommandContext& ctx) {
              (void)ctx.paths;  // where Pipette's files are, and ctx.device: this machine
              *said = (a->shout ? "HELLO " : "hello ") + a->name;
              return a->name == "nobody" ? 1 : 0;
            };
          }};
}

int Cli(const std::vector<Command>& commands, std::vector<const char*> args) {
  args.insert(args.begin(), "pipette");
  return RunCli(int(args.size()), args.data(), commands);
}

TEST(CommandRecipe, AMadeUpCommandRunsWithItsArguments) {
  std::string said;
  std::vector<Command> commands = Commands();
  commands.push_back(Hello(&said));
  EXPECT_EQ(Cli(commands, {"hello", "--name", "ada"}), 0);
  EXPECT_EQ(said, "hello ada");
  EXPECT_EQ(Cli(commands, {"hello", "--name", "ada", "--shout"}), 0);
  EXPECT_EQ(said, "HELLO ada");
  EXPECT_EQ(Cli(commands, {"hello", "--name", "nobody"}), 1);  // its own exit code
}

TEST(CommandRecipe, AMadeUpCommandIsListedSuggestedAndChecked) {
  std::string said;
  std::vector<Command> commands = Commands();
  commands.push_back(Hello(&said));
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(Cli(commands, {"--help"}), 0);
  const std::string help = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(help.find("hello"), std::string::npos) << help;
  EXPECT_NE(help.find("Say hello to someone"), std::string::npos) << help;

  ::testing::internal::CaptureStderr();
  EXPECT_EQ(Cli(commands, {"helo", "--name", "ada"}), 2);
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("unknown command 'helo' (did you mean 'hello'?)"), std::string::npos) << err;

  ::testing::internal::CaptureStderr();
  EXPECT_EQ(Cli(commands, {"hello"}), 2);  // --name is required
  err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("--name"), std::string::npos) << err;
  EXPECT_TRUE(said.empty());

  // The commands Pipette ships have no hello.
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(Cli(Commands(), {"hello", "--name", "ada"}), 2);
  err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("unknown command 'hello'"), std::string::npos) << err;
}

}  // namespace
}  // namespace pipette::app
