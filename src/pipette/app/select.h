// `pipette select`: the cells of stored runs held against a profile's constraints and ranked by its
// weights (select/select.h), with the vetoes, the Pareto set, a decision tree over devices and a
// recommendation. Profiles come from --profiles FILE, the runs' experiment files (`select:`) or
// those Pipette ships, in that order. Exit codes: 0 a candidate fits, 1 none does, 2 bad input.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pipette::app {

struct SelectArgs {
  std::string store = "results/pipette.db";
  std::vector<int64_t> runs;  // default: the latest run
  std::string profile;        // its name
  std::string profiles;       // a profiles file
  std::string format = "md";  // md | json
  std::string output;         // empty: standard output
  bool list = false;          // list the profiles instead
};

int Select(const SelectArgs& args);

}  // namespace pipette::app
