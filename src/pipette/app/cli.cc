#include "pipette/app/cli.h"

#include <cstdio>

#include "pipette/build_info.h"
#include "pipette/device/local_device.h"

namespace pipette::app {

int RunCli(int argc, const char* const* argv, const std::vector<Command>& commands) {
  CLI::App app{"Pipette: reproducible benchmarks for on-device language models"};
  app.set_version_flag("--version", std::string(kPipetteVersion) + " (" + kPipetteCommit + ")");
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, CommandRun>> defined;
  std::vector<std::string> names;
  for (const Command& c : commands) {
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    defined.emplace_back(sub, c.define(*sub));
    names.push_back(c.name);
  }
  // CLI11 would call an unknown command an unexpected argument.
  if (argc > 1) {
    if (const Status known = CheckCommand(argv[1], names); !known) {
      std::fprintf(stderr, "error: %s\nRun with --help for more information.\n",
                   known.error().message.c_str());
      return known.error().exit_code;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  const Paths paths = DefaultPaths(argv[0]);
  device::LocalDevice device;
  for (const auto& [sub, run] : defined) {
    if (*sub) return run({paths, device});
  }
  return 2;
}

}  // namespace pipette::app
