#include "pipette/metrics/sustained.h"

#include <gtest/gtest.h>

#include <limits>

namespace pipette::metrics {
namespace {

using nlohmann::json;

// A chunk of `n` tokens starting at `start_s`, each `token_ms` long, and what the sensors said
// after it.
json Chunk(double start_s, int n, double token_ms, json sensors = json()) {
  const auto t0 = static_cast<int64_t>(start_s * 1e9);
  json ends = json::array();
  for (int i = 1; i <= n; ++i) ends.push_back(t0 + static_cast<int64_t>(i * token_ms * 1e6));
  json c = {{"t_start_ns", t0}, {"token_end_ns", ends}};
  if (!sensors.is_null()) c["sensors"] = sensors;
  return c;
}

// 25 s of chunks of 1 s each: 100 t/s for the first 10 s, then 50 t/s.
json TwentyFiveSeconds(bool with_sensors) {
  json chunks = json::array();
  for (int s = 0; s < 25; ++s) {
    const double ms = s < 10 ? 10 : 20;
    json sensors;
    if (with_sensors) {
      sensors = {{"temp_c", 40 + s},
                 {"freq_mhz", s < 10 ? 2000.0 : 1000.0},
                 {"energy", {{"joules", 5.0}, {"seconds", 1.0}, {"source", "powercap"}}}};
    }
    chunks.push_back(Chunk(s, int(1000 / ms) - 1, ms, sensors));  // ends before the next second
  }
  return {{"seconds", 25}, {"chunks", chunks}};
}

TEST(Sustained, WindowsOfTenSecondsAndTheDecayBetweenTheFirstAndTheLast) {
  const Sustained s = SustainedOf(TwentyFiveSeconds(true));
  ASSERT_TRUE(s.error.empty()) << s.error;
  ASSERT_EQ(s.windows.size(), 2u);  // the last 5 s are not a full window
  EXPECT_DOUBLE_EQ(s.windows[0].tps, 100);
  EXPECT_DOUBLE_EQ(s.windows[1].tps, 50);
  EXPECT_DOUBLE_EQ(s.windows[0].wall_tps, 99);  // 990 tokens in 10 s: the gaps count
  EXPECT_DOUBLE_EQ(s.windows[1].wall_tps, 49);
  EXPECT_DOUBLE_EQ(*s.decay, 0.5);
  EXPECT_TRUE(DecayFlagged(*s.decay));
  EXPECT_FALSE(DecayFlagged(0.2));
  EXPECT_EQ(s.windows[0].tokens, 990);
  EXPECT_DOUBLE_EQ(*s.windows[0].temp_c, 49);  // the hottest reading in the window
  EXPECT_DOUBLE_EQ(*s.windows[1].freq_mhz, 1000);
  EXPECT_DOUBLE_EQ(*s.windows[0].power_w, 5);
  EXPECT_EQ(s.tokens, 10 * 99 + 15 * 49);
  EXPECT_DOUBLE_EQ(*s.energy_per_token, 25 * 5.0 / double(s.tokens));
}

TEST(Sustained, WithoutSensorsOnlyTheSpeedAndWhyNotTheEnergy) {
  json raw = TwentyFiveSeconds(false);
  const Sustained s = SustainedOf(raw);
  ASSERT_EQ(s.windows.size(), 2u);
  EXPECT_FALSE(s.windows[0].temp_c);
  EXPECT_FALSE(s.windows[0].power_w);
  EXPECT_FALSE(s.energy_per_token);
  EXPECT_EQ(s.energy_na, "no energy reading");
  raw["chunks"][3]["sensors"] = {{"energy", {{"na", "no powercap counter"}}}};
  EXPECT_EQ(SustainedOf(raw).energy_na, "no energy reading");  // the first chunk says first
}

// Values of another type, timestamps far apart or near the ends of int64 say why, never throw or
// overflow (found by fuzz/store_json_fuzz.cc: `chunks` of another type threw a JSON type_error).
TEST(Sustained, OutsideValuesOfAnyShapeSayWhy) {
  EXPECT_EQ(SustainedOf(json::array({1, 2})).error, "no chunk of generation was stored");
  EXPECT_EQ(SustainedOf(json{{"chunks", 5}}).error, "no chunk of generation was stored");
  EXPECT_EQ(SustainedOf(json{{"chunks", {7}}}).error, "a chunk without its timestamps");
  EXPECT_EQ(SustainedOf(json{{"chunks", {{{"t_start_ns", -5}, {"token_end_ns", {1}}}}}}).error,
            "a chunk without its timestamps");
  EXPECT_EQ(SustainedOf(json{{"chunks", {{{"t_start_ns", 0}, {"token_end_ns", {1, "2"}}}}}}).error,
            "a token timestamp that is not a whole number");
  const json far = {{"chunks",
                     {{{"t_start_ns", 0},
                       {"token_end_ns", {1, std::numeric_limits<int64_t>::max()}},
                       {"sensors", "hot"}}}}};
  EXPECT_EQ(SustainedOf(far).error, "token timestamps more than a week apart");
  const json odd = {{"chunks",
                     {{{"t_start_ns", 0},
                       {"token_end_ns", {1'000'000'000, 25'000'000'000}},
                       {"sensors", {{"energy", 3}, {"temp_c", "x"}}}}}}};
  const Sustained s = SustainedOf(odd);
  EXPECT_EQ(s.error, "");
  EXPECT_EQ(s.windows.size(), 2u);
  EXPECT_EQ(s.energy_na, "no energy reading");
}

TEST(Sustained, BrokenSamplesSayWhy) {
  EXPECT_EQ(SustainedOf(json::object()).error, "no chunk of generation was stored");
  json raw = {{"chunks", {{{"token_end_ns", {1, 2}}}}}};
  EXPECT_EQ(SustainedOf(raw).error, "a chunk without its timestamps");
  raw = {{"chunks", {{{"t_start_ns", 10}, {"token_end_ns", {5}}}}}};
  EXPECT_EQ(SustainedOf(raw).error, "token timestamps out of order");
}

}  // namespace
}  // namespace pipette::metrics
