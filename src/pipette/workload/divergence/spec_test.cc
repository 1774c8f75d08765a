#include "pipette/workload/divergence/spec.h"

#include <gtest/gtest.h>

#include "pipette/config/canonical.h"
#include "pipette/config/validate.h"
#include "pipette/workload/gen/spec.h"
#include "pipette/workload/spec_testing.h"

namespace pipette::workload {
namespace {

const std::string kQuality = kSmol + "quality:\n";

TEST(DivergenceSpec, ParsedWithTheGenItCompares) {
  auto ex = ParseWritten(kQuality + "  gen:\n  divergence: {reference: a}\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  EXPECT_EQ(config::CanonicalForm(*ex)["quality"]["divergence"], "a");
  EXPECT_EQ(WrittenErrorOf(kQuality + "  divergence: {reference: a}\n"),
            "ex.yaml: divergence compares the outputs of gen: add 'gen:' to quality");
  EXPECT_EQ(WrittenErrorOf(kQuality + "  gen:\n  divergence: {reference: a, x: 1}\n"),
            "ex.yaml:4:15: divergence: takes exactly 'reference:' (a model of this file)");
  EXPECT_EQ(
      WrittenErrorOf(kQuality + "  gen:\n  kld: {reference: a}\n  divergence: {reference: b}\n"),
      "ex.yaml: kld and divergence name different references ('a', 'b'): the reference "
      "runs first, so they must be the same model");
  EXPECT_TRUE(
      ParseWritten(kQuality + "  gen:\n  kld: {reference: a}\n  divergence: {reference: a}\n")
          .ok());
}

TEST(DivergenceSpec, TheReferenceIsAModelOfTheFileAndRunsFirst) {
  config::Experiment ex = ThreeModels();
  SetGenSpec(&ex, GenSpec{});
  SetDivergenceSpec(&ex, DivergenceSpec{"b"});
  ASSERT_TRUE(config::ValidateAndOrder(&ex).ok());
  EXPECT_EQ(ModelNames(ex), (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_EQ(ex.Resolved()["quality"]["divergence"], "b");
  config::Experiment bad = ThreeModels();
  SetGenSpec(&bad, GenSpec{});
  SetDivergenceSpec(&bad, DivergenceSpec{"z"});
  EXPECT_EQ(config::ValidateAndOrder(&bad).error().message,
            "ex.yaml: divergence reference 'z' is not a model of this file");
}

}  // namespace
}  // namespace pipette::workload
