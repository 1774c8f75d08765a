#include "pipette/metrics/sustained.h"

#include <algorithm>
#include <cmath>

#include "pipette/stats/stats.h"

namespace pipette::metrics {
namespace {

using nlohmann::json;

std::optional<double> Number(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

}  // namespace

bool DecayFlagged(double decay) { return decay > kDecayFlag; }

Sustained SustainedOf(const json& raw, double window_s) {
  Sustained out;
  const json& chunks = raw.value("chunks", json::array());
  if (!chunks.is_array() || chunks.empty()) {
    out.error = "no chunk of generation was stored";
    return out;
  }
  // Each token's end and its own duration (from the one before it in its chunk, the first from
  // the chunk's start), on the worker's clock; each chunk's sensor reading at its last token.
  struct Token {
    int64_t end_ns;
    double seconds;
  };
  struct Reading {
    int64_t at_ns;
    json sensors;
  };
  std::vector<Token> tokens;
  std::vector<Reading> readings;
  int64_t t0 = INT64_MAX;
  for (const json& c : chunks) {
    const json& ends = c.value("token_end_ns", json::array());
    auto start = c.find("t_start_ns");
    if (start == c.end() || !start->is_number_integer() || !ends.is_array() || ends.empty()) {
      out.error = "a chunk without its timestamps";
      return out;
    }
    int64_t prev = start->get<int64_t>();
    t0 = std::min(t0, prev);
    for (const json& e : ends) {
      const int64_t end = e.get<int64_t>();
      if (end <= prev) {
        out.error = "token timestamps out of order";
        return out;
      }
      tokens.push_back({end, double(end - prev) / 1e9});
      prev = end;
    }
    readings.push_back({prev, c.value("sensors", json::object())});
  }
  out.tokens = static_cast<int64_t>(tokens.size());
  out.seconds = double(tokens.back().end_ns - t0) / 1e9;
  const auto n_windows = static_cast<int64_t>(std::floor(out.seconds / window_s));
  for (int64_t k = 0; k < n_windows; ++k) {
    const int64_t lo = t0 + static_cast<int64_t>(double(k) * window_s * 1e9);
    const int64_t hi = t0 + static_cast<int64_t>(double(k + 1) * window_s * 1e9);
    SustainedWindow w;
    w.start_s = double(k) * window_s;
    std::vector<double> rates;
    for (const Token& t : tokens) {
      if (t.end_ns >= lo && t.end_ns < hi) rates.push_back(1.0 / t.seconds);
    }
    w.tokens = static_cast<int64_t>(rates.size());
    // A window in which no token ended (a stall): 0 t/s.
    w.tps = rates.empty() ? 0 : stats::Percentile(rates, 50);
    w.wall_tps = double(rates.size()) / window_s;
    std::vector<double> temps, freqs;
    double joules = 0, span = 0;
    bool metered = true;
    for (const Reading& r : readings) {
      if (r.at_ns < lo || r.at_ns >= hi) continue;
      if (auto t = Number(r.sensors, "temp_c")) temps.push_back(*t);
      if (auto f = Number(r.sensors, "freq_mhz")) freqs.push_back(*f);
      const json& e = r.sensors.value("energy", json::object());
      auto j = Number(e, "joules");
      auto s = Number(e, "seconds");
      if (j && s) {
        joules += *j;
        span += *s;
      } else {
        metered = false;
      }
    }
    if (!temps.empty()) w.temp_c = *std::max_element(temps.begin(), temps.end());
    if (!freqs.empty()) {
      double sum = 0;
      for (double f : freqs) sum += f;
      w.freq_mhz = sum / double(freqs.size());
    }
    if (metered && span > 0) w.power_w = joules / span;
    out.windows.push_back(w);
  }
  if (out.windows.size() >= 2 && out.windows.front().tps > 0) {
    out.decay = 1.0 - out.windows.back().tps / out.windows.front().tps;
  }
  // Energy per token: every chunk's joules over every token, or why not.
  double joules = 0;
  for (const Reading& r : readings) {
    const json& e = r.sensors.value("energy", json::object());
    if (auto j = Number(e, "joules")) {
      joules += *j;
    } else {
      out.energy_na = e.value("na", std::string("no energy reading"));
      break;
    }
  }
  if (out.energy_na.empty() && out.tokens > 0) out.energy_per_token = joules / double(out.tokens);
  return out;
}

}  // namespace pipette::metrics
