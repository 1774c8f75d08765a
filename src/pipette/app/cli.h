// The command line (docs/architecture.md "Adding a command"): every command is one entry, its
// name, its help, and what defines its arguments and runs it; main() is RunCli with the commands
// Pipette ships (cli_commands.cc). A command's work is its app/ function (app::Run, app::Compare,
// ...): the entry only reads arguments into its Args and calls it.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "pipette/app/commands.h"
#include "pipette/device/device.h"

namespace pipette::app {

// What a command may use once its arguments are read: where Pipette's files are, and this
// machine, the device every worker starts on.
struct CommandContext {
  const Paths& paths;
  device::Device& device;
};

// Runs a command whose arguments were read; its exit code.
using CommandRun = std::function<int(const CommandContext&)>;

struct Command {
  std::string name;  // what the first argument names
  std::string help;  // one line for --help
  // Adds its arguments to its subcommand; what it returns runs it once they are parsed.
  std::function<CommandRun(CLI::App& command)> define;
};

// The commands Pipette ships, in the order --help lists them.
const std::vector<Command>& Commands();

// Parses `argv` against `commands` and runs the one named: 2 for an unknown command or bad
// arguments (naming it, with did-you-mean), 0 for --help and --version.
int RunCli(int argc, const char* const* argv, const std::vector<Command>& commands);

}  // namespace pipette::app
