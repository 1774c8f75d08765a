#include "pipette/config/parse_ready.h"

#include <gtest/gtest.h>

#include "pipette/config/canonical.h"
#include "pipette/config/parse_testing.h"

namespace pipette::config {
namespace {

using testing::ErrorOf;
using testing::Parse;

const std::string kHead = "models: [m.gguf]\ntests: [pp16]\n";

TEST(ParseCooldown, AsWritten) {
  auto ex = Parse(kHead + "cooldown: {seconds: 10, until: temperature}\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  ASSERT_TRUE(ex->cooldown.has_value());
  EXPECT_DOUBLE_EQ(ex->cooldown->seconds, 10);
  EXPECT_TRUE(ex->cooldown->until_start_temperature);
  // Written, so part of what the file says (its hash).
  EXPECT_EQ(CanonicalForm(*ex)["cooldown"]["until"], "temperature");
  auto seconds = Parse(kHead + "cooldown: 30\n");
  ASSERT_TRUE(seconds.ok()) << seconds.error().message;
  EXPECT_DOUBLE_EQ(seconds->cooldown->seconds, 30);
  EXPECT_FALSE(seconds->cooldown->until_start_temperature);
  auto temperature = Parse(kHead + "cooldown: temperature\n");
  ASSERT_TRUE(temperature.ok());
  EXPECT_TRUE(temperature->cooldown->until_start_temperature);
  // Not written: the hash of a file without it is unchanged.
  auto plain = Parse(kHead);
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(CanonicalForm(*plain).contains("cooldown"));
}

TEST(ParseCooldown, BadValuesSayWhereAndWhat) {
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
