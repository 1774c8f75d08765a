// sustained<T> (docs/metrics.md "sustained<T>"): greedy generation for T seconds, as chunks of tg
// requests back to back, the device's sensors read after each chunk. Here: the stored sample cut
// into windows of 10 s of the worker's clock, each window's t/s (the median of its tokens' own
// rates), its hottest temperature, mean CPU frequency and power where the device tells, the decay
// from the first window to the last, and the energy per token over the whole run.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace pipette::metrics {

inline constexpr double kSustainedWindowS = 10;
// A decay past this is flagged in every output: the device cannot hold its speed.
inline constexpr double kDecayFlag = 0.30;

struct SustainedWindow {
  double start_s = 0;   // from the run's first token request
  int64_t tokens = 0;   // tokens that ended in the window
  double tps = 0;       // median over those tokens of 1 / (its end − the one before it)
  double wall_tps = 0;  // those tokens ÷ the window's seconds: pauses between tokens count
  std::optional<double> temp_c, freq_mhz, power_w;
};

struct Sustained {
  std::vector<SustainedWindow> windows;  // full windows only (a last partial one is left out)
  std::optional<double> decay;  // 1 − last window's t/s / the first's; two windows needed
  double seconds = 0;           // first request's start to the last token
  int64_t tokens = 0;
  std::optional<double> energy_per_token;  // J/token over every chunk, where all were metered
  std::string energy_na;                   // why not, where the device said
  std::string error;                       // non-empty: the sample cannot be read
};

// The sample of a sustained test (its raw JSON).
Sustained SustainedOf(const nlohmann::json& raw, double window_s = kSustainedWindowS);
bool DecayFlagged(double decay);

}  // namespace pipette::metrics
