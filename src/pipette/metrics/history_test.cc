#include "pipette/metrics/history.h"

#include <gtest/gtest.h>

#include "pipette/workload/registry.h"

namespace pipette::metrics {
namespace {

using nlohmann::json;

store::SampleRecord Sample(const std::string& test, json raw) {
  store::SampleRecord s;
  s.test = test;
  s.raw = std::move(raw);
  return s;
}

TEST(History, MediansPerRequestAndPerUnitOfEachKind) {
  const int64_t ms = 1000000;
  const std::vector<std::pair<std::string, store::SampleRecord>> samples = {
      {"a", Sample("pp100", {{"t_start_ns", 0}, {"t_end_ns", 100 * ms}})},
      {"a", Sample("pp100", {{"t_start_ns", 0}, {"t_end_ns", 300 * ms}})},
      {"a", Sample("pp100", {{"t_start_ns", 0}, {"t_end_ns", 200 * ms}})},
      {"b", Sample("tg4", {{"t_start_ns", 0}, {"token_end_ns", {10 * ms, 20 * ms, 40 * ms}}})},
      {"b", Sample("load", {{"t_start_ns", 0}, {"t_end_ns", 500 * ms}})},
      {"b",
       Sample("ppl", {{"t_start_ns", 0}, {"t_end_ns", 512 * ms}, {"request", {{"n_ctx", 512}}}})},
      {"b", Sample("kld_ref", {{"t_start_ns", 0}, {"t_end_ns", 256 * ms}, {"n_tokens", 128}})},
      {"b", Sample("gen", {{"t_start_ns", 0}, {"t_end_ns", 1500 * ms}})},
      {"b", Sample("mc", {{"t_start_ns", 0}, {"t_end_ns", 30 * ms}})},
      {"b", Sample("mc", {{"answer", 1}})},         // stored before mc samples had timestamps
      {"b", Sample("memory", {{"rss_bytes", 1}})},  // no timed request
  };
  const estimate::History h = BuildHistory(samples, workload::Derivers());
  EXPECT_DOUBLE_EQ(h.seconds_per_request.at({"a", "pp100"}), 0.2);
  EXPECT_DOUBLE_EQ(h.seconds_per_unit.at("pp"), 0.002);
  EXPECT_DOUBLE_EQ(h.seconds_per_unit.at("tg"), 0.04 / 4);  // per token the test names
  EXPECT_DOUBLE_EQ(h.seconds_per_unit.at("load"), 0.5);
  EXPECT_DOUBLE_EQ(h.seconds_per_request.at({"b", "load"}), 0.5);
  EXPECT_DOUBLE_EQ(h.seconds_per_unit.at("ppl"), 0.001);
  EXPECT_DOUBLE_EQ(h.seconds_per_unit.at("kld"), 0.002);  // the reference's chunks count as kld
  EXPECT_DOUBLE_EQ(h.seconds_per_unit.at("gen"), 1.5);
  EXPECT_EQ(h.seconds_per_request.count({"b", "memory"}), 0u);
  EXPECT_DOUBLE_EQ(h.seconds_per_unit.at("mc"), 0.03);  // per item
  EXPECT_EQ(h.seconds_per_unit.size(), 7u);
}

// A board's samples are its own kinds (its cell keys name it): an emulated board's 20x slower
// decoding does not drag this machine's rate, nor the other way round.
TEST(History, AnotherDevicesSamplesAreItsOwnKinds) {
  const int64_t ms = 1000000;
  const std::vector<std::pair<std::string, store::SampleRecord>> samples = {
      {"a", Sample("tg4", {{"t_start_ns", 0}, {"token_end_ns", {10 * ms, 20 * ms, 40 * ms}}})},
      {"a,device=board",
       Sample("tg4", {{"t_start_ns", 0}, {"token_end_ns", {200 * ms, 400 * ms, 800 * ms}}})},
      {"a,device=board", Sample("load", {{"t_start_ns", 0}, {"t_end_ns", 900 * ms}})},
  };
  const estimate::History h = BuildHistory(samples, workload::Derivers());
  EXPECT_DOUBLE_EQ(h.seconds_per_unit.at("tg"), 0.04 / 4);
  EXPECT_DOUBLE_EQ(h.seconds_per_unit.at("tg@board"), 0.8 / 4);
  EXPECT_DOUBLE_EQ(h.seconds_per_unit.at("load@board"), 0.9);
  EXPECT_EQ(h.seconds_per_unit.count("load"), 0u);
}

}  // namespace
}  // namespace pipette::metrics
