// `pipette predict` (docs/metrics.md "predicted tg"): if decoding is bound by memory bandwidth, a
// device moves the same bytes per second whatever it decodes, so one measured tg figure predicts
// every other from its bytes per token (model/token_reads.h): predicted t/s = the reference's t/s
// x the reference's bytes per token / this figure's bytes per token. Set against what was
// measured, the error says whether the device is bandwidth-bound for this model family.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/metrics/figures.h"
#include "pipette/util/result.h"

namespace pipette::metrics {

// Within this median |error| a group counts as bandwidth-bound.
inline constexpr double kBandwidthBoundError = 0.10;

struct Prediction {
  const ResultRow* measured = nullptr;  // the tg throughput row
  int64_t depth = 0;
  double bytes_per_token = 0;
  double predicted = 0;  // t/s
  double error = 0;      // (predicted - measured) / measured
  std::optional<double> bw_util;
  bool reference = false;
};

// One device, runtime and parameter set (all but depth and the context's size, n_ctx, n_batch and
// n_ubatch, which follow it): the rows predicted from one reference.
struct PredictionGroup {
  std::string device;
  std::string runtime;  // with its version
  std::string params;   // the parameters shared, "threads=2 n_ctx=512"
  const ResultRow* reference = nullptr;
  double moved_bytes_per_s = 0;  // the reference's t/s x its bytes per token
  std::vector<Prediction> rows;  // in row order, the reference among them
  // Median |error| over the rows other than the reference; nullopt when there is none.
  std::optional<double> median_abs_error;
  // Within kBandwidthBoundError; nullopt with nothing to compare.
  std::optional<bool> bandwidth_bound;
};

// The groups of `rows` (a report's derived rows) with at least one decode rate (a tg figure)
// whose bytes per token are known. `from`: the reference variant, a model name or a quantization
// label (a group without it is left out); "": each group's first tg figure. An input error when
// `from` matches no tg figure, naming the variants there are. `figures`: which rows are a decode
// rate, its bytes per token and its bandwidth use (metrics::Shown; workload::Figures() from app/).
Result<std::vector<PredictionGroup>> Predict(const std::vector<ResultRow>& rows,
                                             const std::string& from,
                                             const FigureCatalogue& figures);

}  // namespace pipette::metrics
