// `pipette compare BASELINE CANDIDATE`: two stored runs' figures paired and compared
// (compare/compare.h), optionally held against a gate file. Exit codes: 0 compared (and the gate,
// if any, passed), 1 a gate line failed, 2 bad input.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pipette::app {

struct CompareArgs {
  // STORE (its latest run), STORE:RUN, a JSON report (its latest run) or REPORT.json:RUN
  std::string baseline, candidate;
  // key=value,...: only the baseline's (candidate's) cells that match, so that two
  // configurations of one run compare (compare/sides.h OnlyRows)
  std::string baseline_only, candidate_only;
  std::vector<std::string> ignore;   // keys not paired on
  std::vector<std::string> pair_on;  // the only keys paired on (with the test and metric)
  std::string gate;                  // a gate file
  std::string format = "md";         // md | json
  std::string output;                // empty: standard output
  uint64_t seed = 20261204;
  int resamples = 10000;
};

int Compare(const CompareArgs& args);

}  // namespace pipette::app
