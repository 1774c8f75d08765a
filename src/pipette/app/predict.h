// `pipette predict`: tg t/s of every variant and depth of a stored run, predicted from one
// measured variant by bytes per token (metrics/predict.h), beside what was measured.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pipette::app {

struct PredictArgs {
  std::string store = "results/pipette.db";
  std::vector<int64_t> runs;  // empty: the latest run
  std::string from;           // the reference: a model or a quantization ("": each group's first)
  std::string format = "md";  // md | json
  std::string output;         // empty: standard output
};

int Predict(const PredictArgs& args);

}  // namespace pipette::app
