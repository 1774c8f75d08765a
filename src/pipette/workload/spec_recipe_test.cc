// The recipe of docs/architecture.md "Adding a workload", for the spec: a made-up quality
// workload, `echo` (a test fixture, registered only in this test's registry), is parsed, put in
// canonical form, resolved and checked by config/ through its def alone: nothing in config/ names
// it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

#include "pipette/config/canonical.h"
#include "pipette/config/experiment.h"
#include "pipette/config/parse.h"
#include "pipette/config/resolve_files.h"
#include "pipette/util/strings.h"
#include "pipette/workload/ppl/spec.h"
#include "pipette/workload/spec_testing.h"

namespace pipette::workload {
namespace {

// echo: {words: N, file: PATH}: as written and as resolved.
struct WrittenEcho {
  std::optional<int> words{};
  config::WrittenFile file{};
};
struct EchoSpec {
  int words = 3;
  std::string file;  // absolute path, "" when none is written
};

class EchoFixtureSpecDef : public config::SpecDef {
 public:
  std::string Name() const override { return "echo"; }
  Result<std::any> Parse(const config::Where& w, const YAML::Node& node) const override {
    WrittenEcho spec;
    auto m = config::YamlMapping::Read(w, node, "echo", "echo: takes a mapping (words:, file:)");
    if (!m) return m.error();
    if (auto st = m->OnlyKeys({"words", "file"}, " in echo"); !st) return st.error();
    FieldReader& f = m->fields();
    spec.words = f.OptionalInt("words", 1, 100);
    if (f.Has("file")) spec.file = {f.String("file"), m->PlaceOf("file")};
    if (auto st = m->status(); !st) return st.error();
    return std::any(spec);
  }
  nlohmann::json Canonical(const std::any& written) const override {
    const auto& e = std::any_cast<const WrittenEcho&>(written);
    nlohmann::json j = nlohmann::json::object();
    config::PutWritten(j, "words", e.words);
    config::PutWritten(j, "file", e.file.path);
    return j;
  }
  Result<std::any> Resolve(const config::Where& w, const std::any& any,
                           const config::ResolveOptions&) const override {
    const auto& written = std::any_cast<const WrittenEcho&>(any);
    EchoSpec spec;
    spec.words = written.words.value_or(spec.words);
    if (written.file.path) {
      auto path = config::ResolveDataPath(w, written.file.pos, *written.file.path, "echo file");
      if (!path) return path.error();
      spec.file = *path;
    }
    return std::any(spec);
  }
  nlohmann::json Resolved(const std::any& resolved) const override {
    const auto& e = std::any_cast<const EchoSpec&>(resolved);
    return {{"words", e.words}, {"file", e.file}};
  }
};

// The test's registry: ppl, then echo.
class SpecRecipeTest : public SpecTest {
 protected:
  void SetUp() override {
    SpecTest::SetUp();
    opts_.specs = &registry_of_test_;
  }
  EchoFixtureSpecDef echo_;
  config::SpecRegistry registry_of_test_{{&PplSpecDef(), &echo_}};
};

TEST_F(SpecRecipeTest, AWorkloadOfItsOwnParsesCanonicalizesAndResolves) {
  std::ofstream(dir_ / "words.txt") << "one two three\n";
  const std::string text = kSmol + "quality:\n  echo: {file: words.txt, words: 2}\n  ppl:\n";
  auto written = config::ParseExperiment(text, "ex.yaml", runtime::ParamRegistry::Default(),
                                         registry_of_test_, runtime::Registry());
  ASSERT_TRUE(written.ok()) << written.error().message;
  const auto* we = written->quality.Get<WrittenEcho>("echo");
  ASSERT_NE(we, nullptr);
  EXPECT_EQ(we->words, 2);
  EXPECT_EQ(written->quality.all().front().name, "ppl");  // the registry's order
  EXPECT_EQ(config::CanonicalForm(*written)["quality"]["echo"],
            (nlohmann::json{{"words", 2}, {"file", "words.txt"}}));

  auto ex = Parse(text);
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  const EchoSpec* echo = ex->quality.Get<EchoSpec>("echo");
  ASSERT_NE(echo, nullptr);
  EXPECT_EQ(echo->words, 2);
  EXPECT_EQ(echo->file, dir_ / "words.txt");
  EXPECT_EQ(ex->Resolved()["quality"]["echo"]["file"], dir_ / "words.txt");
  EXPECT_NE(ex->Hash(), Parse(kSmol + "quality:\n  echo: {file: words.txt}\n  ppl:\n")->Hash());
  EXPECT_EQ(ErrorOf(kSmol + "quality:\n  echo: {file: none.txt}\n").find("ex.yaml:3:16: "), 0u);
}

TEST_F(SpecRecipeTest, ItsErrorsAndItsNameAreSuggested) {
  EXPECT_EQ(ErrorOf(kSmol + "quality:\n  echo: {wrods: 2}\n"),
            "ex.yaml:3:10: unknown key 'wrods' in echo (did you mean 'words'?)");
  EXPECT_EQ(ErrorOf(kSmol + "quality:\n  ecoh: {words: 2}\n"),
            "ex.yaml:3:3: unknown quality workload 'ecoh' (did you mean 'echo'?) (workloads: ppl, "
            "echo)");
  // The registry Pipette ships has no echo.
  EXPECT_NE(WrittenErrorOf(kSmol + "quality:\n  echo: {words: 2}\n")
                .find("unknown quality workload 'echo'"),
            std::string::npos);
}

}  // namespace
}  // namespace pipette::workload
