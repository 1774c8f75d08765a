// The ppl derivation on stored sample JSON, as the runner stores it.
#include "pipette/workload/ppl/derive.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pipette::workload {
namespace {

using nlohmann::json;

store::SampleRecord Stored(const std::string& test, int rep, json raw) {
  return {0, 1, test, rep, false, std::move(raw)};
}

TEST(PplDerive, PerplexityOverEveryScoredTokenAndTheChunksAsSamples) {
  const std::vector<store::SampleRecord> samples = {
      Stored("ppl_corpus", 0,
             {{"path", "c.txt"}, {"sha256", "abc"}, {"n_tokens", 30}, {"n_chars", 120}}),
      Stored("ppl", 0, {{"logprob", {-1.0, -1.0}}}), Stored("ppl", 1, {{"logprob", {-2.0, -2.0}}})};
  std::vector<metrics::ResultRow> rows;
  ASSERT_TRUE(DerivePpl({}, samples, &rows).ok());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].test, "ppl");
  EXPECT_EQ(rows[0].metric, "ppl");
  EXPECT_NEAR(rows[0].value, std::exp(1.5), 1e-9);  // exp of the mean negative log-probability
  ASSERT_EQ(rows[0].samples.size(), 2u);
  EXPECT_NEAR(rows[0].samples[1], std::exp(2.0), 1e-9);
  EXPECT_EQ(rows[0].dataset_sha256, "abc");
  EXPECT_EQ(rows[1].metric, "tok_per_kchar");
  EXPECT_DOUBLE_EQ(rows[1].value, 250.0);
}

TEST(PplDerive, NoCorpusNoFigureAndAMalformedSampleIsAnError) {
  std::vector<metrics::ResultRow> rows;
  ASSERT_TRUE(DerivePpl({}, {Stored("ppl", 0, {{"logprob", {-1.0}}})}, &rows).ok());
  EXPECT_TRUE(rows.empty());
  const auto st = DerivePpl(
      {}, {Stored("ppl_corpus", 0, json::object()), Stored("ppl", 0, {{"logprob", "x"}})}, &rows);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("stored ppl data could not be read"), std::string::npos);
}

}  // namespace
}  // namespace pipette::workload
