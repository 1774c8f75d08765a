// pipette-probe (probe/probe.h): a tiny main.
#include <iostream>
#include <string>
#include <vector>

#include "probe/probe.h"

int main(int argc, char** argv) {
  return pipette::probe::ProbeMain(std::vector<std::string>(argv + 1, argv + argc), std::cout,
                                   std::cerr);
}
