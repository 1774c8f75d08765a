#include "pipette/metrics/sustained.h"

#include <algorithm>
#include <cmath>

#include "pipette/stats/stats.h"
#include "pipette/util/json_read.h"

namespace pipette::metrics {
namespace {

using nlohmann::json;

// The raw sample is read back from a store: a value of another type reads as absent, never
// throws (util/json_read.h).
using json_read::Member;
using json_read::Number;

// The longest run whose windows are counted: timestamps further apart are not a measurement.
constexpr double kMaxSeconds = 7 * 24 * 3600.0;

}  // namespace

bool DecayFlagged(double decay) { return decay > kDecayFlag; }

Sustained SustainedOf(const json& raw, double window_s) {
  Sustained out;
  const json chunks = Member(raw, "chunks");
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
    const json ends = Member(c, "token_end_ns");
    const json start = Member(c, "t_start_ns");
    if (!start.is_number_integer() || start.get<int64_t>() < 0 || !ends.is_array() ||
        ends.empty()) {
      out.error = "a chunk without its timestamps";
      return out;
    }
    int64_t prev = start.get<int64_t>();
    t0 = std::min(t0, prev);
    for (const json& e : ends) {
      if (!e.is_number_integer()) {
        out.error = "a token timestamp that is not a whole number";
        return out;
      }
      const int64_t end = e.get<int64_t>();  // > prev >= 0 below: end - prev cannot overflow
      if (end <= prev) {
        out.error = "token timestamps out of order";
        return out;
      }
      tokens.push_back({end, double(end - prev) / 1e9});
      prev = end;
    }
    readings.push_back({prev, Member(c, "sensors")});
  }
  out.tokens = static_cast<int64_t>(tokens.size());
  out.seconds = double(tokens.back().end_ns - t0) / 1e9;
  if (out.seconds > kMaxSeconds) {
    out.error = "token timestamps more than a week apart";
    return out;
  }
  const auto n_windows = static_cast<int64_t>(std::floor(out.seconds / window_s));
  // Window k holds the token ends and readings in [lo(k), hi(k)): each is put in its window once
  // (a run of a week has tens of thousands of windows).
  auto lo = [&](int64_t k) { return t0 + static_cast<int64_t>(double(k) * window_s * 1e9); };
  auto window_of = [&](int64_t at_ns) -> int64_t {
    if (at_ns < t0) return -1;
    const double whole = std::floor(double(at_ns - t0) / (window_s * 1e9));
    if (whole >= double(n_windows)) return -1;  // past the last whole window (or far past it)
    auto k = static_cast<int64_t>(whole);
    while (k > 0 && at_ns < lo(k)) --k;
    while (at_ns >= lo(k + 1)) ++k;
    return k < n_windows ? k : -1;
  };
  std::vector<std::vector<double>> rates_in(static_cast<size_t>(std::max<int64_t>(n_windows, 0)));
  std::vector<std::vector<const Reading*>> readings_in(rates_in.size());
  for (const Token& t : tokens) {
    if (const int64_t k = window_of(t.end_ns); k >= 0)
      rates_in[size_t(k)].push_back(1.0 / t.seconds);
  }
  for (const Reading& r : readings) {
    if (const int64_t k = window_of(r.at_ns); k >= 0) readings_in[size_t(k)].push_back(&r);
  }
  for (int64_t k = 0; k < n_windows; ++k) {
    SustainedWindow w;
    w.start_s = double(k) * window_s;
    const std::vector<double>& rates = rates_in[size_t(k)];
    w.tokens = static_cast<int64_t>(rates.size());
    // A window in which no token ended (a stall): 0 t/s.
    w.tps = rates.empty() ? 0 : stats::Percentile(rates, 50);
    w.wall_tps = double(rates.size()) / window_s;
    std::vector<double> temps, freqs;
    double joules = 0, span = 0;
    bool metered = true;
    for (const Reading* r : readings_in[size_t(k)]) {
      if (auto t = Number(r->sensors, "temp_c")) temps.push_back(*t);
      if (auto f = Number(r->sensors, "freq_mhz")) freqs.push_back(*f);
      const json e = Member(r->sensors, "energy");
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
    const json e = Member(r.sensors, "energy");
    if (auto j = Number(e, "joules")) {
      joules += *j;
    } else {
      const json na = Member(e, "na");
      out.energy_na = na.is_string() ? na.get<std::string>() : "no energy reading";
      break;
    }
  }
  if (out.energy_na.empty() && out.tokens > 0) out.energy_per_token = joules / double(out.tokens);
  return out;
}

}  // namespace pipette::metrics
