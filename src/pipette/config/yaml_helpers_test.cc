#include "pipette/config/yaml_helpers.h"

#include <gtest/gtest.h>

#include <string>

namespace pipette::config {
namespace {

using nlohmann::json;

const Where kFile("ex.yaml");

YAML::Node Load(const std::string& text) { return YAML::Load(text); }

TEST(YamlMapping, ReadsFieldsFromTheirTextAsWritten) {
  const YAML::Node node =
      Load("n: 512\nq: '64'\nx: 0.5\nname: 1.50\nflag: TRUE\nlist: [a, 2]\none: b\nnothing:\n");
  auto m = YamlMapping::Read(kFile, node, "w", "not a mapping");
  ASSERT_TRUE(m.ok()) << m.error().message;
  FieldReader& f = m->fields();
  EXPECT_EQ(f.Int("n", 1, 1024), 512);
  EXPECT_EQ(f.Int("q", 1, 1024), 64);  // a quoted number is still the number it spells
  EXPECT_EQ(f.Number("x", 0, 1), 0.5);
  EXPECT_EQ(f.String("name"), "1.50");  // a name is its text, not the number it might be
  EXPECT_TRUE(f.Bool("flag"));
  EXPECT_EQ(f.Strings("list"), (std::vector<std::string>{"a", "2"}));
  EXPECT_EQ(f.Strings("one"), (std::vector<std::string>{"b"}));  // one value: a list of one
  EXPECT_TRUE(f.Has("nothing"));
  EXPECT_TRUE(m->status().ok()) << m->status().error().message;
  EXPECT_EQ(m->keys(),
            (std::vector<std::string>{"n", "q", "x", "name", "flag", "list", "one", "nothing"}));
  // As JSON, by YAML's types: quoted is a string, plain is typed.
  EXPECT_EQ(m->json().at("q"), json("64"));
  EXPECT_EQ(m->json().at("n"), json(512));
  EXPECT_EQ(m->json().at("flag"), json(true));
  EXPECT_TRUE(m->json().at("nothing").is_null());
}

TEST(YamlMapping, AProblemIsAtItsFieldAndNamesItsPath) {
  const YAML::Node node = Load("top:\n  n: many\n  cpus: [0, x]\n  r: 150\n  s: [1]\n");
  auto top = YamlMapping::Read(kFile, node, "", "");
  ASSERT_TRUE(top.ok());
  const auto error = [&](const std::function<void(FieldReader&)>& read) {
    auto m = YamlMapping::Read(kFile, top->Node("top"), "top", "");
    EXPECT_TRUE(m.ok());
    read(m->fields());
    return m->status().ok() ? std::string() : m->status().error().message;
  };
  EXPECT_EQ(error([](FieldReader& f) { f.Int("n", 1, 10); }),
            "ex.yaml:2:6: field 'top.n' must be an integer, got 'many'");
  EXPECT_EQ(error([](FieldReader& f) { f.Ints("cpus", 0, 10); }),
            "ex.yaml:3:13: field 'top.cpus[1]' must be an integer, got 'x'");
  EXPECT_EQ(error([](FieldReader& f) { f.Number("r", 0, 100, "percent"); }),
            "ex.yaml:4:6: field 'top.r' (percent) must be between 0 and 100, got 150");
  EXPECT_EQ(error([](FieldReader& f) { f.String("s"); }),
            "ex.yaml:5:6: field 'top.s' must be a string, got a list");
  EXPECT_EQ(error([](FieldReader& f) { f.String("absent"); }),
            "ex.yaml:2:3: missing required field 'top.absent'");
  EXPECT_EQ(error([](FieldReader& f) { f.FailAt("cpus", 1, "CPU x is not known"); }),
            "ex.yaml:3:13: CPU x is not known");
  EXPECT_EQ(top->KeyPlaceOf("top").line, 1);
  EXPECT_EQ(top->PlaceOf("top").line, 2);
}

TEST(YamlMapping, KeysAreGivenOnceAndKnown) {
  auto dup = YamlMapping::Read(kFile, Load("a: 1\nb: {c: 1, c: 2}\n"), "w", "");
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().message, "ex.yaml:2:11: duplicate key 'c' in w.b (first at line 2)");
  EXPECT_EQ(YamlMapping::Read(kFile, Load("[1, 2]"), "w", "w: takes a mapping").error().message,
            "ex.yaml:1:1: w: takes a mapping");
  auto m = YamlMapping::Read(kFile, Load("corpus: a\ncorpsu: b\n"), "w", "");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->OnlyKeys({"corpus"}, " in w").error().message,
            "ex.yaml:2:1: unknown key 'corpsu' in w (did you mean 'corpus'?)");
}

TEST(YamlMapping, ALoneValueIsOneField) {
  auto lone = YamlMapping::Lone(kFile, Load("[a, b]"), "models[0]");
  ASSERT_TRUE(lone.ok());
  lone->fields().String("models[0]");
  EXPECT_EQ(lone->status().error().message,
            "ex.yaml:1:1: field 'models[0]' must be a string, got a list");
}

TEST(YamlMapping, APartReadOnItsOwnIsBoundedToo) {
  // A section's parser may be handed a part of a document no CheckTree saw.
  const YAML::Node node = Load("a: &x [*x]\n");
  auto m = YamlMapping::Read(kFile, node, "w", "");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("nested more than 64 levels deep"), std::string::npos);
}

TEST(CheckTree, RefusesWhatWouldNotEnd) {
  EXPECT_EQ(CheckTree(kFile, Load("a: &x [*x]\n")).error().message,
            "ex.yaml:1:4: nested more than 64 levels deep (an alias that holds itself?)");
  std::string laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 7; ++i) {
    laughs += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) laughs += (j ? ", *a" : "*a") + std::to_string(i - 1);
    laughs += "]\n";
  }
  const auto st = CheckTree(kFile, Load(laughs));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("more than 10000 values once its aliases are expanded"),
            std::string::npos);
  EXPECT_TRUE(CheckTree(kFile, Load("a: &x [1, 2]\nb: *x\n")).ok());  // an alias as such is fine
}

}  // namespace
}  // namespace pipette::config
