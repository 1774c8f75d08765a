#include "pipette/app/commands.h"

#include <gtest/gtest.h>

namespace pipette::app {
namespace {

const std::vector<std::string> kCommands = {"run", "report", "sensitivity", "env"};

TEST(Commands, AnUnknownCommandIsNamedWithTheKnownOnes) {
  auto e = CheckCommand("bogus", kCommands);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->exit_code, 2);
  EXPECT_EQ(e->message, "unknown command 'bogus' (commands: run, report, sensitivity, env)");
  EXPECT_EQ(CheckCommand("rnu", kCommands)->message,
            "unknown command 'rnu' (did you mean 'run'?) (commands: run, report, sensitivity, "
            "env)");
  EXPECT_EQ(CheckCommand("sensitivty", kCommands)->message.substr(0, 50),
            "unknown command 'sensitivty' (did you mean 'sensit");
}

TEST(Commands, CommandsAndOptionsPass) {
  EXPECT_FALSE(CheckCommand("run", kCommands).has_value());
  EXPECT_FALSE(CheckCommand("--help", kCommands).has_value());
  EXPECT_FALSE(CheckCommand("--version", kCommands).has_value());
}

}  // namespace
}  // namespace pipette::app
