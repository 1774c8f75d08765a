// pipette: the command line. Every command is an entry of app::Commands() (app/cli.h).
#include <csignal>

#include "pipette/app/cli.h"

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // a dead worker's pipe is an error value, not a signal
  return pipette::app::RunCli(argc, argv, pipette::app::Commands());
}
