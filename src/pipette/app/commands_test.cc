#include "pipette/app/commands.h"

#include <gtest/gtest.h>

namespace pipette::app {
namespace {

const std::vector<std::string> kCommands = {"run", "report", "sensitivity", "env"};

TEST(Commands, AnUnknownCommandIsNamedWithTheKnownOnes) {
  const Status e = CheckCommand("bogus", kCommands);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().exit_code, 2);
  EXPECT_EQ(e.error().message, "unknown command 'bogus' (commands: run, report, sensitivity, env)");
  EXPECT_EQ(CheckCommand("rnu", kCommands).error().message,
            "unknown command 'rnu' (did you mean 'run'?) (commands: run, report, sensitivity, "
            "env)");
  EXPECT_EQ(CheckCommand("sensitivty", kCommands).error().message.substr(0, 50),
            "unknown command 'sensitivty' (did you mean 'sensit");
}

TEST(Commands, CommandsAndOptionsPass) {
  EXPECT_TRUE(CheckCommand("run", kCommands).ok());
  EXPECT_TRUE(CheckCommand("--help", kCommands).ok());
  EXPECT_TRUE(CheckCommand("--version", kCommands).ok());
}

}  // namespace
}  // namespace pipette::app
