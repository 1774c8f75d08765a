#include "pipette/config/validate.h"

#include <gtest/gtest.h>

namespace pipette::config {
namespace {

// A resolved experiment with three models (no files: validation reads none).
Experiment ThreeModels() {
  Experiment ex;
  ex.path = "ex.yaml";
  for (const char* n : {"a", "b", "c"}) {
    ModelSpec m;
    m.name = n;
    m.path = std::string("/m/") + n + ".gguf";
    ex.models.push_back(m);
  }
  return ex;
}

std::vector<std::string> Names(const Experiment& ex) {
  std::vector<std::string> out;
  for (const auto& m : ex.models) out.push_back(m.name);
  return out;
}

TEST(Validate, TheReferenceRunsFirst) {
  Experiment ex = ThreeModels();
  ex.kld = KldSpec{.reference = "c", .corpus = "/c.txt"};
  ASSERT_TRUE(ValidateAndOrder(&ex).ok());
  EXPECT_EQ(Names(ex), (std::vector<std::string>{"c", "a", "b"}));
  Experiment div = ThreeModels();
  div.gen = GenSpec{};
  div.divergence_reference = "b";
  ASSERT_TRUE(ValidateAndOrder(&div).ok());
  EXPECT_EQ(Names(div), (std::vector<std::string>{"b", "a", "c"}));
  Experiment plain = ThreeModels();
  ASSERT_TRUE(ValidateAndOrder(&plain).ok());  // nothing to check, nothing moved
  EXPECT_EQ(Names(plain), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(Validate, ReferencesMustBeModelsOfTheFile) {
  Experiment ex = ThreeModels();
  ex.kld = KldSpec{.reference = "bb", .corpus = "/c.txt", .line = 4};
  EXPECT_EQ(ValidateAndOrder(&ex).error().message,
            "ex.yaml:4: kld reference 'bb' is not a model of this file (did you mean 'b'?)");
  Experiment div = ThreeModels();
  div.gen = GenSpec{};
  div.divergence_reference = "z";
  EXPECT_EQ(ValidateAndOrder(&div).error().message,
            "ex.yaml: divergence reference 'z' is not a model of this file");
}

}  // namespace
}  // namespace pipette::config
