#include "pipette/config/parse_ready.h"

#include <gtest/gtest.h>

#include "pipette/config/canonical.h"
#include "pipette/config/parse_testing.h"

namespace pipette::config {
namespace {

using testing::ErrorOf;
using testing::Parse;

const std::string kHead = "models: [m.gguf]\ntests: [pp16]\n";

TEST(ParseReady, TheGateAndTheCooldownAsWritten) {
  auto ex = Parse(kHead +
                  "ready: {cpu_busy: 5, temperature: 70, window: 0.5, deadline: 120}\n"
                  "cooldown: {seconds: 10, until: temperature}\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  ASSERT_TRUE(ex->ready.has_value());
  EXPECT_DOUBLE_EQ(ex->ready->cpu_busy_max, 0.05);
  EXPECT_EQ(ex->ready->temp_max_c, 70.0);
  EXPECT_DOUBLE_EQ(ex->ready->window_s, 0.5);
  EXPECT_DOUBLE_EQ(ex->ready->deadline_s, 120);
  ASSERT_TRUE(ex->cooldown.has_value());
  EXPECT_DOUBLE_EQ(ex->cooldown->seconds, 10);
  EXPECT_TRUE(ex->cooldown->until_start_temperature);
  // Written, so part of what the file says (its hash).
  const auto canonical = CanonicalForm(*ex);
  EXPECT_EQ(canonical["ready"]["cpu_busy"], 5.0);
  auto seven = Parse(kHead + "ready: {cpu_busy: 7}\n");
  ASSERT_TRUE(seven.ok());
  EXPECT_EQ(CanonicalForm(*seven)["ready"]["cpu_busy"].dump(), "7.0");  // as written
  EXPECT_EQ(canonical["cooldown"]["until"], "temperature");

  auto defaults = Parse(kHead + "ready: true\ncooldown: 30\n");
  ASSERT_TRUE(defaults.ok()) << defaults.error().message;
  EXPECT_EQ(defaults->ready, ReadySpec{});
  EXPECT_DOUBLE_EQ(defaults->cooldown->seconds, 30);
  EXPECT_FALSE(defaults->cooldown->until_start_temperature);
  auto temperature = Parse(kHead + "cooldown: temperature\n");
  ASSERT_TRUE(temperature.ok());
  EXPECT_TRUE(temperature->cooldown->until_start_temperature);

  // Not written: not gated, and the hash of a file without them is unchanged.
  auto plain = Parse(kHead);
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->ready.has_value());
  EXPECT_FALSE(CanonicalForm(*plain).contains("ready"));
  EXPECT_FALSE(CanonicalForm(*plain).contains("cooldown"));
}

TEST(ParseReady, BadValuesSayWhereAndWhat) {
  EXPECT_EQ(ErrorOf(kHead + "ready: {cpu_bsy: 5}\n"),
            "ex.yaml:3:9: unknown key 'cpu_bsy' in ready: (did you mean 'cpu_busy'?)");
  EXPECT_EQ(ErrorOf(kHead + "ready: {cpu_busy: 150}\n"),
            "ex.yaml:3:19: ready: cpu_busy (percent of all CPUs) must be between 0 and 100, got "
            "150");
  EXPECT_EQ(ErrorOf(kHead + "ready: yes please\n"),
            "ex.yaml:3:8: ready: is true (the defaults) or a mapping {cpu_busy, temperature, "
            "window, deadline}");
  EXPECT_EQ(ErrorOf(kHead + "cooldown: warm\n"),
            "ex.yaml:3:11: cooldown: is seconds, 'temperature', or {seconds: SECONDS, until: "
            "temperature}, not 'warm'");
  EXPECT_EQ(ErrorOf(kHead + "cooldown: 100000\n"),
            "ex.yaml:3:11: cooldown (seconds) must be between 0 and 86400, got 100000");
  EXPECT_EQ(ErrorOf(kHead + "cooldown: {until: cold}\n"),
            "ex.yaml:3:19: cooldown: until is 'temperature' (back at the run's start)");
  EXPECT_EQ(ErrorOf(kHead + "cooldwn: 5\n"),
            "ex.yaml:3:1: unknown key 'cooldwn' (did you mean 'cooldown'?)");
}

}  // namespace
}  // namespace pipette::config
