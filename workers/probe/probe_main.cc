// pipette-probe (probe/probe.h): a tiny main.
#include <iostream>
#include <string>
#include <vector>

#include "common/exit_with_parent.h"
#include "probe/probe.h"

int main(int argc, char** argv) {
  // Staged on a board: it dies with its session (a link that drops, a probe that ran out of
  // time), never left running with its arrays.
  pipette::worker_common::ExitWithParentWhenAsked();
  return pipette::probe::ProbeMain(std::vector<std::string>(argv + 1, argv + argc), std::cout,
                                   std::cerr);
}
