#include "pipette/metrics/history.h"

#include <map>

#include "pipette/metrics/derive.h"
#include "pipette/stats/stats.h"

namespace pipette::metrics {

using nlohmann::json;

estimate::History BuildHistory(
    const std::vector<std::pair<std::string, store::SampleRecord>>& keyed_samples) {
  std::map<std::pair<std::string, std::string>, std::vector<double>> per_request;
  std::map<std::string, std::vector<double>> per_unit;
  for (const auto& [key, s] : keyed_samples) {
    if (s.test == "load") {
      if (auto ms = LoadMs(s.raw)) {
        per_request[{key, s.test}].push_back(*ms / 1000.0);
        per_unit["load"].push_back(*ms / 1000.0);
      }
      continue;
    }
    const auto secs = RequestSeconds(s.test, s.raw);
    if (!secs) continue;
    per_request[{key, s.test}].push_back(*secs);
    if (s.test == "gen") {
      per_unit["gen"].push_back(*secs);  // per item
      continue;
    }
    if (s.test == "ppl" || s.test == "kld" || s.test == "kld_ref") {
      // Scored chunks: per token of the chunk (its request names its length).
      const double n = double(s.raw.value("request", json::object()).value("n_ctx", int64_t{0}));
      const double tokens = n > 0 ? n : double(s.raw.value("n_tokens", int64_t{0}));
      if (tokens > 0) per_unit[s.test == "ppl" ? "ppl" : "kld"].push_back(*secs / tokens);
      continue;
    }
    const std::string kind = IsSpeedTest("pp", s.test)   ? "pp"
                             : IsSpeedTest("tg", s.test) ? "tg"
                                                         : "ttft";
    const size_t digits = s.test.find_first_of("0123456789");
    const double n = std::stod(s.test.substr(digits));
    if (n > 0) per_unit[kind].push_back(*secs / n);
  }
  estimate::History h;
  for (const auto& [k, v] : per_request) h.seconds_per_request[k] = stats::Median(v);
  for (const auto& [k, v] : per_unit) h.seconds_per_unit[k] = stats::Median(v);
  return h;
}

}  // namespace pipette::metrics
