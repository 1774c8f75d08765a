#include "pipette/metrics/predict.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "pipette/stats/stats.h"
#include "pipette/util/json_read.h"

namespace pipette::metrics {
namespace {

using Key = std::pair<int64_t, std::string>;  // cell id, test

// The parameters a group shares: all but the depth and what sizes the context for it (n_ctx
// defaults to just enough for each depth, and the batches are capped at it; a tg decodes one
// token a call whatever they are).
std::string ParamsWithoutDepth(const nlohmann::json& params) {
  std::vector<std::string> parts;
  if (params.is_object()) {
    for (const auto& [k, v] : params.items()) {
      if (k == "depth" || k == "n_ctx" || k == "n_batch" || k == "n_ubatch") continue;
      parts.push_back(k + "=" + (v.is_string() ? v.get<std::string>() : v.dump()));
    }
  }
  return fmt::format("{}", fmt::join(parts, " "));
}

bool IsVariant(const ResultRow& r, const std::string& from) {
  return r.cell->model == from || r.cell->quant == from;
}

}  // namespace

Result<std::vector<PredictionGroup>> Predict(const std::vector<ResultRow>& rows,
                                             const std::string& from,
                                             const FigureCatalogue& figures) {
  // Each test's bytes per token and bandwidth use, as the figures' declarations say which rows
  // they are (metrics::Shown).
  std::map<Key, const ResultRow*> bytes_of, bw_util_of;
  for (const ResultRow& r : rows) {
    if (!r.na_reason.empty()) continue;
    if (figures.Shows(r, Shown::kBytesPerToken)) bytes_of[{r.cell->cell_id, r.test}] = &r;
    if (figures.Shows(r, Shown::kBandwidthUse)) bw_util_of[{r.cell->cell_id, r.test}] = &r;
  }
  std::map<std::string, PredictionGroup> groups;
  std::vector<std::string> order;
  std::set<std::string> variants;
  for (const ResultRow& r : rows) {
    if (!figures.Shows(r, Shown::kDecodeRate) || !r.na_reason.empty() || r.value <= 0) continue;
    auto bytes = bytes_of.find({r.cell->cell_id, r.test});
    if (bytes == bytes_of.end()) continue;  // not a GGUF model, or an endpoint's figure
    variants.insert(r.cell->model + " (" + r.cell->quant + ")");
    const std::string params = ParamsWithoutDepth(r.cell->params);
    const std::string runtime = r.cell->runtime + " " + r.cell->runtime_version;
    const std::string key = r.cell->device_id + "\x1f" + runtime + "\x1f" + params;
    auto [it, fresh] = groups.try_emplace(key);
    PredictionGroup& g = it->second;
    if (fresh) {
      order.push_back(key);
      g.device = r.cell->device;
      g.runtime = runtime;
      g.params = params;
    }
    Prediction p;
    p.measured = &r;
    p.depth = json_read::Int(r.cell->params, "depth").value_or(0);
    p.bytes_per_token = bytes->second->value;
    if (auto u = bw_util_of.find({r.cell->cell_id, r.test}); u != bw_util_of.end()) {
      p.bw_util = u->second->value;
    }
    if (!g.reference && (from.empty() || IsVariant(r, from))) {
      g.reference = &r;
      p.reference = true;
      g.moved_bytes_per_s = r.value * p.bytes_per_token;
    }
    g.rows.push_back(p);
  }
  if (!from.empty() && std::none_of(groups.begin(), groups.end(), [](const auto& kv) {
        return kv.second.reference != nullptr;
      })) {
    return InputError(fmt::format(
        "no tg figure of '{}' to predict from: name a model or a quantization of the run ({})",
        from,
        variants.empty() ? std::string("it has no tg figure of a GGUF model")
                         : fmt::format("{}", fmt::join(variants, ", "))));
  }
  std::vector<PredictionGroup> out;
  for (const std::string& key : order) {
    PredictionGroup& g = groups[key];
    if (!g.reference) continue;
    std::vector<double> errors;
    for (Prediction& p : g.rows) {
      p.predicted = g.moved_bytes_per_s / p.bytes_per_token;
      p.error = (p.predicted - p.measured->value) / p.measured->value;
      if (!p.reference) errors.push_back(std::abs(p.error));
    }
    if (!errors.empty()) {
      g.median_abs_error = stats::Percentile(errors, 50);
      g.bandwidth_bound = *g.median_abs_error <= kBandwidthBoundError;
    }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace pipette::metrics
