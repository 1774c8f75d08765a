#include "pipette/select/profile.h"

#include <gtest/gtest.h>

#include "pipette/select/shipped_profiles.h"
#include "pipette/workload/registry.h"

namespace pipette::select {
namespace {

TEST(Profiles, AProfilesFileParses) {
  auto p = ParseProfiles(
      "profiles:\n"
      "  kiosk:\n"
      "    about: a kiosk\n"
      "    constraints:\n"
      "      - peak_rss <= 2GiB\n"
      "      - 'tg128 >= 10 t/s'\n"
      "    weights: {quality: 1, efficiency: 1}\n"
      "  plain: {}\n",
      "p.yaml", workload::Figures());
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->size(), 2u);
  const Profile& k = p->at("kiosk");
  EXPECT_EQ(k.about, "a kiosk");
  ASSERT_EQ(k.constraints.size(), 2u);
  EXPECT_EQ(k.constraints[0].line, 5);
  EXPECT_EQ(k.constraints[0].column, 9);
  EXPECT_EQ(k.constraints[1].column, 10);  // after the quote
  EXPECT_EQ(k.weights.quality, 1);
  EXPECT_EQ(k.weights.robustness, 0);              // weights given: the rest are 0
  EXPECT_EQ(p->at("plain").weights.quality, 0.4);  // none given: the defaults
  EXPECT_EQ(k.source, "p.yaml");
}

TEST(Profiles, MistakesAreErrorsWithTheirPlace) {
  struct Case {
    const char* yaml;
    const char* message;
  } cases[] = {
      {"profiles:\n  a:\n    constraint: []\n",
       "p.yaml:3:5: unknown key 'constraint' in profile 'a' (keys: about, constraints, weights) "
       "(did you mean 'constraints'?)"},
      {"profiles:\n  a:\n    constraints:\n      - peak_rss =< 1GiB\n",
       "p.yaml:4:18: '=<' is not a comparison: "},
      {"profiles:\n  a:\n    weights: {quality: 0, speed: 1}\n",
       "p.yaml:3:27: unknown weight 'speed' (weights: quality, efficiency, robustness, "
       "engineering)"},
      {"profiles:\n  a:\n    weights: {quality: 0}\n",
       "p.yaml:3:14: weights: at least one weight must be above 0"},
      {"profiles:\n  a: {}\n  a: {}\n",
       "p.yaml:3:3: duplicate key 'a' in profiles (first at line 2)"},
      {"profiles: [a]\n", "p.yaml:1:11: expected a mapping of profile names to profiles"},
      {"profiles:\n  a: &x {about: [*x]}\n",
       "p.yaml:2:6: nested more than 64 levels deep (an alias that holds itself?)"},
      {"profiles:\n  a:\n    constraints:\n      - peak_rs <= 1MiB\n",
       "p.yaml:4:9: 'peak_rs <= 1MiB': 'peak_rs' is no figure Pipette reports "
       "(docs/report-schema.md: "
       "a test, a metric, or test.metric) (did you mean 'peak_rss'?)"},
      {"profiles:\n  a:\n    constraints: ['format_ok >= 1.5']\n",
       "p.yaml:3:33: 'format_ok >= 1.5': no value of format_ok can be >= that: it is a "
       "proportion, from 0 to 1 (0% to 100%)"},
      // A profile's words reach select's JSON, which refuses bytes that are not UTF-8.
      {"profiles:\n  a:\n    about: caf\xe9\n", "p.yaml:3:15: not UTF-8: byte 0xE9"},
  };
  for (const Case& k : cases) {
    auto p = ParseProfiles(k.yaml, "p.yaml", workload::Figures());
    ASSERT_FALSE(p.ok()) << k.yaml;
    EXPECT_EQ(p.error().exit_code, 2);
    EXPECT_EQ(p.error().message.substr(0, std::string(k.message).size()), k.message)
        << p.error().message;
  }
  // Bytes that are UTF-8 but that yaml-cpp reads as UTF-16 (it takes "p\0" for UTF-16LE) can
  // decode to a lone surrogate, which it writes out as bytes that are not UTF-8.
  std::string utf16;
  for (char c : std::string("profiles:\n  a:\n    about: ")) utf16 += {c, '\0'};
  utf16 += std::string("\x41\xd8\x80\x00", 4);  // the units 0xD841 (alone) and 0x0080
  utf16 += {'\n', '\0'};
  auto decoded = ParseProfiles(utf16, "p.yaml", workload::Figures());
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.error().exit_code, 2);
  EXPECT_EQ(decoded.error().message,
            "p.yaml:3:12: this text is not UTF-8 once its escapes are decoded");
  // A file without the section has no profiles; an experiment's section is `select:`.
  EXPECT_TRUE(ParseProfiles("name: x\n", "ex.yaml", workload::Figures())->empty());
  auto ex = ParseProfiles("name: x\nselect:\n  mine: {constraints: [tg128 >= 5 t/s]}\n", "ex.yaml",
                          workload::Figures(), "select");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  EXPECT_EQ(ex->count("mine"), 1u);
  // An experiment's section is held to the same figures.
  auto typo = ParseProfiles("name: x\nselect:\n  mine: {constraints: [peak_rs <= 1MiB]}\n",
                            "ex.yaml", workload::Figures(), "select");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.error().exit_code, 2);
  EXPECT_NE(typo.error().message.find("ex.yaml:3:24: 'peak_rs <= 1MiB': 'peak_rs' is no figure"),
            std::string::npos)
      << typo.error().message;
}

TEST(Profiles, TheShippedOnesParseWithThePractitionersBounds) {
  const Profiles p = ShippedProfiles(workload::Figures());
  ASSERT_EQ(p.count("phone-4gb-chat"), 1u);
  ASSERT_EQ(p.count("board-offline-batch"), 1u);
  std::vector<std::string> texts;
  for (const Constraint& c : p.at("phone-4gb-chat").constraints) texts.push_back(c.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"peak_rss <= 1.5GiB", "ttft@512 <= 800ms",
                                             "tg128 >= 15 t/s", "format_ok >= 0.95"}));
  for (const auto& [name, profile] : p) EXPECT_FALSE(profile.about.empty()) << name;
  // Every shipped constraint names a figure Pipette reports, with a bound it can meet.
  auto parsed = ParseProfiles(kShippedProfilesYaml, "profiles/select.yaml", workload::Figures());
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->size(), p.size());
}

}  // namespace
}  // namespace pipette::select
