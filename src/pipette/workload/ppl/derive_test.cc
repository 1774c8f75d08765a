// The ppl derivation on stored sample JSON, as the runner stores it.
#include "pipette/workload/ppl/derive.h"

#include <gtest/gtest.h>

#include <cmath>

#include "pipette/workload/proportions.h"

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

// The store_json fuzz harness's finding (fuzz/regressions/store_json/): a corpus count past int64
// was converted to an integer, undefined behaviour. A count that cannot be read (past int64, of
// another type, missing) gives no density row; ppl itself still stands.
TEST(PplDerive, CorpusCountsThatCannotBeReadGiveNoDensity) {
  for (const json& n_tokens : {json(3.54526e+29), json("30"), json()}) {
    json corpus = {{"path", "c.txt"}, {"n_chars", 120}};
    if (!n_tokens.is_null()) corpus["n_tokens"] = n_tokens;
    std::vector<metrics::ResultRow> rows;
    ASSERT_TRUE(
        DerivePpl({}, {Stored("ppl_corpus", 0, corpus), Stored("ppl", 0, {{"logprob", {-1.0}}})},
                  &rows)
            .ok());
    ASSERT_EQ(rows.size(), 1u) << n_tokens.dump();
    EXPECT_EQ(rows[0].metric, "ppl");
  }
  std::vector<metrics::ResultRow> rows;
  ASSERT_TRUE(
      DerivePpl({}, {Stored("ppl_corpus", 0, {{"n_tokens", 30}, {"n_chars", 0}})}, &rows).ok());
  EXPECT_TRUE(rows.empty());  // no characters: no density
}

// An item's token and character counts of another type or past int64 leave that item out of the
// density; the others' sums stand.
TEST(ProportionsDensity, ItemCountsThatCannotBeReadAreLeftOut) {
  std::vector<metrics::ResultRow> rows;
  AddDensityRows({}, "gen", json::object(),
                 {Stored("gen", 0, {{"text_tokens", 30}, {"text_chars", 120}}),
                  Stored("gen", 1, {{"text_tokens", 9.9e300}, {"text_chars", 10}}),
                  Stored("gen", 2, {{"text_tokens", "5"}, {"text_chars", 10}})},
                 &rows);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0].value, 250.0);
}

}  // namespace
}  // namespace pipette::workload
