#include "pipette/model/format.h"

#include <gtest/gtest.h>

namespace pipette::model {
namespace {

// Two made-up formats: "a" claims paths ending in .a, "b" any path holding "b".
ModelFormat Named(const std::string& name, const std::string& ext, const std::string& holds) {
  return {
      .name = name,
      .about = "a ." + name + " file",
      .extensions = {ext},
      .recognises = [holds](const std::string& p) { return p.find(holds) != std::string::npos; },
      .read = [](const std::string& p) { return Result<ModelFileFacts>(ModelFileFacts{p}); },
      .measure = [name](const std::string& p) -> Result<ModelFacts> {
        if (p.ends_with("bad.a")) return InputError(p + ": bad");
        return ModelFacts{name + "-key", 7, {{"seen", p}}};
      }};
}

const ModelFormats& Two() {
  static const ModelFormats f({Named("a", ".a", ".a"), Named("b", ".bb", "b")});
  return f;
}

TEST(ModelFormats, TheFirstThatRecognisesAPathReadsIt) {
  EXPECT_EQ(Two().Find("b")->name, "b");
  EXPECT_EQ(Two().Find("c"), nullptr);
  EXPECT_EQ(Two().Of("/m/x.a")->name, "a");
  EXPECT_EQ(Two().Of("/m/b.a")->name, "a");  // both would: the first listed
  EXPECT_EQ(Two().Of("/m/bx")->name, "b");
  EXPECT_EQ(Two().Of("/m/x.c"), nullptr);
}

TEST(ModelFormats, AReferenceNamesAPathByASlashOrAFormatsEnding) {
  EXPECT_TRUE(Two().NamesAPath("dir/m"));
  EXPECT_TRUE(Two().NamesAPath("m.a"));
  EXPECT_TRUE(Two().NamesAPath("m.bb"));
  EXPECT_FALSE(Two().NamesAPath("m.b"));
  EXPECT_FALSE(Two().NamesAPath("smollm2-135m"));
}

TEST(ModelFormats, MessagesListEveryFormat) {
  EXPECT_EQ(Two().Abouts(), "a .a file or a .b file");
  EXPECT_EQ(Two().Abouts({"a bundled name"}), "a .a file, a .b file or a bundled name");
  EXPECT_EQ(ModelFormats({}).Abouts({"x"}), "x");
}

TEST(ModelFormats, AMeasureIsTheRecognisingFormatsAndSaysTheFormat) {
  auto a = Two().Measure("/m/x.a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->sha256, "a-key");
  EXPECT_EQ(a->file_size, 7);
  EXPECT_EQ(a->info, (nlohmann::json{{"seen", "/m/x.a"}, {"format", "a"}}));
  EXPECT_EQ(Two().Measure("/m/bad.a").error().message, "/m/bad.a: bad");
  auto none = Two().Measure("/m/x.c");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().exit_code, 2);
  EXPECT_EQ(none.error().message,
            "/m/x.c: not a model in a format Pipette reads (a .a file or a .b file)");
}

}  // namespace
}  // namespace pipette::model
