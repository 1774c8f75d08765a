// The recipe of docs/architecture.md "Adding an experiment section": a made-up top-level key,
// `note:` (a test fixture, registered only in this test's registry), is parsed, put in canonical
// form and hashed, resolved and checked by config/ through its def alone; a section that changes
// no measurement (Hashed() false, as select: is) is parsed and checked but left out of the hash.
#include <gtest/gtest.h>

#include "pipette/config/canonical.h"
#include "pipette/config/experiment_testing.h"
#include "pipette/config/parse_testing.h"

namespace pipette::config {
namespace {

struct Note {
  std::string text;
  int line = 0;
};

class NoteSection : public SpecDef {
 public:
  explicit NoteSection(bool hashed) : hashed_(hashed) {}
  std::string Name() const override { return hashed_ ? "note" : "memo"; }
  Result<std::any> Parse(const Where& w, const YAML::Node& node) const override {
    auto lone = YamlMapping::Lone(w, node, Name());
    if (!lone) return lone.error();
    const std::string text = lone->fields().Text(Name().c_str());
    if (auto st = lone->status(); !st) return st.error();
    return std::any(Note{text, PosOf(node).line});
  }
  nlohmann::json Canonical(const std::any& written) const override {
    return std::any_cast<const Note&>(written).text;
  }
  bool Hashed() const override { return hashed_; }
  Result<std::any> Resolve(const Where&, const std::any& written,
                           const ResolveOptions&) const override {
    Note n = std::any_cast<const Note&>(written);
    n.text = "resolved: " + n.text;
    return std::any(n);
  }
  Status Validate(Experiment* ex) const override {
    const Note* n = ex->sections.Get<Note>(Name());
    if (n && n->text.find("forbidden") != std::string::npos) {
      return InputError(Name() + ": a forbidden word");
    }
    return {};
  }
  nlohmann::json Resolved(const std::any& resolved) const override {
    return std::any_cast<const Note&>(resolved).text;
  }

 private:
  bool hashed_;
};

class SectionRecipeTest : public ExperimentTest {
 protected:
  void SetUp() override {
    ExperimentTest::SetUp();
    opts_.specs = &specs_;
  }
  const NoteSection note_{true}, memo_{false};
  const SpecRegistry specs_ = testing::TestsOnly().WithSections({&note_, &memo_});
  const std::string head_ = "models: [smollm2-135m-instruct-q4_1]\ntests: [pp16]\n";
};

TEST_F(SectionRecipeTest, AMadeUpSectionIsParsedHashedResolvedAndChecked) {
  auto ex = Parse(head_ + "note: hello\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  const Note* n = ex->sections.Get<Note>("note");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->text, "resolved: hello");
  EXPECT_EQ(n->line, 3);
  EXPECT_EQ(ex->Resolved()["note"], "resolved: hello");
  auto plain = Parse(head_);
  ASSERT_TRUE(plain.ok());
  EXPECT_NE(ex->Hash(), plain->Hash());  // hashed: another note is another experiment
  auto other = Parse(head_ + "note: bye\n");
  ASSERT_TRUE(other.ok());
  EXPECT_NE(ex->Hash(), other->Hash());
  // Its errors, its check against the resolved experiment, and the did-you-mean.
  EXPECT_EQ(ErrorOf(head_ + "note: ''\n"), "ex.yaml:3:7: field 'note' is empty");
  EXPECT_EQ(ErrorOf(head_ + "note: a forbidden word\n"), "note: a forbidden word");
  EXPECT_NE(ErrorOf(head_ + "nte: x\n").find("did you mean 'note'"), std::string::npos);
}

TEST_F(SectionRecipeTest, ASectionThatChangesNoMeasurementIsCheckedButNotHashed) {
  auto ex = Parse(head_ + "memo: hello\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  EXPECT_NE(ex->sections.Get<Note>("memo"), nullptr);
  EXPECT_FALSE(ex->Resolved().contains("memo"));
  auto plain = Parse(head_);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(ex->Hash(), plain->Hash());
  EXPECT_EQ(ErrorOf(head_ + "memo: ''\n"), "ex.yaml:3:7: field 'memo' is empty");
  // Without the def in the registry the key is unknown.
  opts_.specs = &testing::TestsOnly();
  EXPECT_NE(ErrorOf(head_ + "memo: hello\n").find("unknown key 'memo'"), std::string::npos);
}

}  // namespace
}  // namespace pipette::config
