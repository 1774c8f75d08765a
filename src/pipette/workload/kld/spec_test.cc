#include "pipette/workload/kld/spec.h"

#include <gtest/gtest.h>

#include <fstream>

#include "pipette/config/canonical.h"
#include "pipette/config/validate.h"
#include "pipette/workload/spec_testing.h"

namespace pipette::workload {
namespace {

const std::string kKld = kSmol + "quality:\n  kld: ";

TEST(KldSpec, ParsedAsWrittenAndNothingElse) {
  auto ex = ParseWritten(kKld + "{reference: o, top_k: 8}\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  const auto* kld = ex->quality.Get<WrittenKld>("kld");
  ASSERT_NE(kld, nullptr);
  EXPECT_FALSE(kld->mode.has_value());  // top_k alone: topk, decided when resolved
  EXPECT_EQ(kld->top_k, 8);
  EXPECT_EQ(config::CanonicalForm(*ex)["quality"]["kld"],
            (nlohmann::json{{"reference", "o"}, {"top_k", 8}}));
  auto full = ParseWritten(kKld + "{reference: o, mode: full}\n");
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(config::CanonicalForm(*full)["quality"]["kld"]["mode"], "full");
}

TEST(KldSpec, ErrorsNameTheKeyAndSuggest) {
  EXPECT_EQ(
      WrittenErrorOf(kKld + "{reference: smollm2-135m-instruct-q4_1, mode: full, top_k: 16}\n"),
      "ex.yaml:3:67: kld.top_k applies to mode: topk only (mode: full compares every id of "
      "the vocabulary)");
  EXPECT_EQ(WrittenErrorOf(kKld + "{reference: smollm2-135m-instruct-q4_1, mode: top-k}\n"),
            "ex.yaml:3:54: kld.mode must be full or topk, not 'top-k' (did you mean 'topk'?)");
  EXPECT_EQ(WrittenErrorOf(kKld + "{reference: smollm2-135m-instruct-q4_1, mdoe: full}\n"),
            "ex.yaml:3:48: unknown key 'mdoe' in kld (did you mean 'mode'?)");
  EXPECT_EQ(WrittenErrorOf(kKld + "{corpus: x.txt}\n"),
            "ex.yaml:3:8: kld: needs 'reference:' (a model of this file)");
}

TEST(KldSpec, TheReferenceIsAModelOfTheFileAndRunsFirst) {
  config::Experiment ex = ThreeModels();
  SetKldSpec(&ex, KldSpec{.reference = "c", .corpus = "/c.txt"});
  ASSERT_TRUE(config::ValidateAndOrder(&ex).ok());
  EXPECT_EQ(ModelNames(ex), (std::vector<std::string>{"c", "a", "b"}));
  config::Experiment plain = ThreeModels();
  ASSERT_TRUE(config::ValidateAndOrder(&plain).ok());  // nothing to check, nothing moved
  EXPECT_EQ(ModelNames(plain), (std::vector<std::string>{"a", "b", "c"}));
  config::Experiment bad = ThreeModels();
  SetKldSpec(&bad, KldSpec{.reference = "bb", .corpus = "/c.txt", .line = 4});
  EXPECT_EQ(config::ValidateAndOrder(&bad).error().message,
            "ex.yaml:4: kld reference 'bb' is not a model of this file (did you mean 'b'?)");
}

using KldSpecResolve = SpecTest;

TEST_F(KldSpecResolve, DefaultsAndModes) {
  const std::string corpus = opts_.datasets_dir + "/ppl/devils-dictionary.txt";
  auto ex =
      Parse(kKld + "{corpus: " + corpus + ", reference: smollm2-135m-instruct-q4_1, chunks: 1}\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  const KldSpec* kld = KldSpecOf(*ex);
  ASSERT_NE(kld, nullptr);
  EXPECT_EQ(kld->chunks, 1);
  EXPECT_EQ(kld->n_ctx, 512);
  EXPECT_EQ(kld->mode, KldMode::kFull);
  EXPECT_FALSE(ex->Resolved()["quality"]["kld"].contains("top_k"));
  // top_k alone asks for the compact mode.
  auto topk = Parse(kKld + "{reference: smollm2-135m-instruct-q4_1, top_k: 16}\n");
  ASSERT_TRUE(topk.ok()) << topk.error().message;
  EXPECT_EQ(KldSpecOf(*topk)->mode, KldMode::kTopK);
  EXPECT_EQ(KldSpecOf(*topk)->top_k, 16);
  EXPECT_EQ(topk->Resolved()["quality"]["kld"]["mode"], "topk");
  EXPECT_EQ(topk->Resolved()["quality"]["kld"]["top_k"], 16);
}

TEST_F(KldSpecResolve, CrossChecksComeAfterResolving) {
  EXPECT_EQ(ErrorOf(kKld + "{reference: smollm2-135m-instruct-q4}\n"),
            "ex.yaml:3: kld reference 'smollm2-135m-instruct-q4' is not a model of this file "
            "(did you mean 'smollm2-135m-instruct-q4_1'?)");
}

TEST_F(KldSpecResolve, CorporaThatCannotFillOneChunkAreRefused) {
  std::ofstream(dir_ / "empty.txt") << "";
  std::ofstream(dir_ / "ten.txt") << "ten bytes.";
  const std::string empty = dir_ / "empty.txt", ten = dir_ / "ten.txt";
  EXPECT_EQ(ErrorOf(kKld + "{reference: smollm2-135m-instruct-q4_1, corpus: empty.txt}\n"),
            "ex.yaml:3:56: the kld corpus " + empty + " is empty");
  EXPECT_EQ(ErrorOf(kKld + "{reference: smollm2-135m-instruct-q4_1, corpus: ten.txt}\n")
                .substr(0, 30 + ten.size()),
            "ex.yaml:3:56: the kld corpus " + ten + " ");
  // The default is checked the same way: here the shipped corpus is missing.
  opts_.datasets_dir = dir_.path().string();
  EXPECT_NE(ErrorOf(kKld + "{reference: smollm2-135m-instruct-q4_1}\n")
                .find("the default corpus is missing at " + dir_.path().string()),
            std::string::npos);
}

}  // namespace
}  // namespace pipette::workload
