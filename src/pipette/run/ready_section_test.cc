// `ready:` and `cooldown:`, the runner's sections of the experiment file: parsed, hashed and stored
// by config/ through their defs (registered here as app/experiment_specs.cc registers them).
#include "pipette/run/ready_section.h"

#include <gtest/gtest.h>

#include "pipette/config/canonical.h"
#include "pipette/config/parse_testing.h"

namespace pipette::run {
namespace {

const std::string kHead = "models: [m.gguf]\ntests: [pp16]\n";

const config::SpecRegistry& WithReady() {
  static const config::SpecRegistry r =
      config::testing::TestsOnly().WithSections({&ReadySectionDef(), &CooldownSectionDef()});
  return r;
}

Result<config::WrittenExperiment> Parse(const std::string& text) {
  return config::testing::Parse(text, WithReady());
}

std::string ErrorOf(const std::string& text) { return config::testing::ErrorOf(text, WithReady()); }

const ReadySpec* Written(const config::WrittenExperiment& ex) {
  return ex.sections.Get<ReadySpec>("ready");
}

TEST(ReadySection, TheGateAsWritten) {
  auto ex = Parse(kHead + "ready: {cpu_busy: 5, temperature: 70, window: 0.5, deadline: 120}\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  const ReadySpec* ready = Written(*ex);
  ASSERT_NE(ready, nullptr);
  EXPECT_DOUBLE_EQ(ready->cpu_busy_max, 0.05);
  EXPECT_EQ(ready->temp_max_c, 70.0);
  EXPECT_DOUBLE_EQ(ready->window_s, 0.5);
  EXPECT_DOUBLE_EQ(ready->deadline_s, 120);
  // Written, so part of what the file says (its hash), as config/ wrote it before it was a
  // section: at the top level.
  const auto canonical = config::CanonicalForm(*ex);
  EXPECT_EQ(canonical["ready"],
            (nlohmann::json{
                {"cpu_busy", 5.0}, {"temperature", 70.0}, {"window", 0.5}, {"deadline", 120.0}}));
  auto seven = Parse(kHead + "ready: {cpu_busy: 7}\n");
  ASSERT_TRUE(seven.ok());
  EXPECT_EQ(config::CanonicalForm(*seven)["ready"]["cpu_busy"].dump(), "7.0");  // as written
  auto defaults = Parse(kHead + "ready: true\n");
  ASSERT_TRUE(defaults.ok()) << defaults.error().message;
  ASSERT_NE(Written(*defaults), nullptr);
  EXPECT_EQ(*Written(*defaults), ReadySpec{});
  EXPECT_NE(config::ConfigHash(*defaults), config::ConfigHash(*seven));
  // Not written: not gated, and the hash of a file without it is unchanged.
  auto plain = Parse(kHead);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(Written(*plain), nullptr);
  EXPECT_FALSE(config::CanonicalForm(*plain).contains("ready"));
}

TEST(ReadySection, BadValuesSayWhereAndWhat) {
  EXPECT_EQ(ErrorOf(kHead + "ready: {cpu_bsy: 5}\n"),
            "ex.yaml:3:9: unknown key 'cpu_bsy' in ready: (did you mean 'cpu_busy'?)");
  EXPECT_EQ(
      ErrorOf(kHead + "ready: {cpu_busy: 150}\n"),
      "ex.yaml:3:19: field 'ready.cpu_busy' (percent of all CPUs) must be between 0 and 100, got "
      "150");
  EXPECT_EQ(ErrorOf(kHead + "ready: yes please\n"),
            "ex.yaml:3:8: ready: is true (the defaults) or a mapping {cpu_busy, temperature, "
            "window, deadline}");
  EXPECT_EQ(ErrorOf(kHead + "redy: true\n"),
            "ex.yaml:3:1: unknown key 'redy' (did you mean 'ready'?)");
}

TEST(CooldownSection, AsWritten) {
  auto ex = Parse(kHead + "cooldown: {seconds: 10, until: temperature}\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  const CooldownSpec* c = ex->sections.Get<CooldownSpec>("cooldown");
  ASSERT_NE(c, nullptr);
  EXPECT_DOUBLE_EQ(c->seconds, 10);
  EXPECT_TRUE(c->until_start_temperature);
  // Written, so part of what the file says (its hash), as config/ wrote it before.
  EXPECT_EQ(config::CanonicalForm(*ex)["cooldown"],
            (nlohmann::json{{"seconds", 10.0}, {"until", "temperature"}}));
  auto seconds = Parse(kHead + "cooldown: 30\n");
  ASSERT_TRUE(seconds.ok()) << seconds.error().message;
  EXPECT_EQ(config::CanonicalForm(*seconds)["cooldown"], 30.0);
  auto temperature = Parse(kHead + "cooldown: temperature\n");
  ASSERT_TRUE(temperature.ok());
  EXPECT_EQ(config::CanonicalForm(*temperature)["cooldown"], "temperature");
  EXPECT_FALSE(config::CanonicalForm(*Parse(kHead)).contains("cooldown"));
}

TEST(CooldownSection, BadValuesSayWhereAndWhat) {
  EXPECT_EQ(ErrorOf(kHead + "cooldown: warm\n"),
            "ex.yaml:3:11: cooldown: is seconds, 'temperature', or {seconds: SECONDS, until: "
            "temperature}, not 'warm'");
  EXPECT_EQ(ErrorOf(kHead + "cooldown: 100000\n"),
            "ex.yaml:3:11: field 'cooldown' (seconds) must be between 0 and 86400, got 100000");
  EXPECT_EQ(ErrorOf(kHead + "cooldown: {until: cold}\n"),
            "ex.yaml:3:19: cooldown: until is 'temperature' (back at the run's start)");
  EXPECT_EQ(ErrorOf(kHead + "cooldwn: 5\n"),
            "ex.yaml:3:1: unknown key 'cooldwn' (did you mean 'cooldown'?)");
}

TEST(ReadySection, TheRunnerReadsWhatWasResolved) {
  config::Experiment ex;
  EXPECT_EQ(ReadyOf(ex), nullptr);
  ReadySpec spec;
  spec.deadline_s = 5;
  SetReady(&ex, spec);
  ASSERT_NE(ReadyOf(ex), nullptr);
  EXPECT_EQ(ReadyOf(ex)->deadline_s, 5);
  EXPECT_EQ(CooldownOf(ex), CooldownSpec{});  // none written: no cooldown
  SetCooldown(&ex, {30, false});
  EXPECT_EQ(CooldownOf(ex).seconds, 30);
}

}  // namespace
}  // namespace pipette::run
