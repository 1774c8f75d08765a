// The kld derivation on stored sample JSON, as the runner stores it.
#include "pipette/workload/kld/derive.h"

#include <gtest/gtest.h>

namespace pipette::workload {
namespace {

using nlohmann::json;

store::SampleRecord Stored(int64_t cell, const std::string& test, int rep, json raw) {
  return {0, cell, test, rep, false, std::move(raw)};
}

double Figure(const std::vector<metrics::ResultRow>& rows, const std::string& metric) {
  for (const auto& r : rows) {
    if (r.metric == metric) return r.value;
  }
  return -1;
}

TEST(KldDerive, FullVocabularySamplesCarryEachPositionsKl) {
  const std::vector<store::SampleRecord> samples = {
      Stored(2, "kld", 0,
             {{"kl", {0.1, 0.3}},
              {"ref_logprob", {-1.0, -1.0}},
              {"logprob", {-1.0, -2.0}},
              {"ref_argmax", {5, 6}},
              {"argmax", {5, 7}},
              {"request", {{"reference", "big"}, {"corpus_sha256", "abc"}}}})};
  std::vector<metrics::ResultRow> rows;
  ASSERT_TRUE(DeriveKld({}, samples, {}, &rows).ok());
  EXPECT_NEAR(Figure(rows, "kld_mean"), 0.2, 1e-12);
  EXPECT_DOUBLE_EQ(Figure(rows, "kld_max"), 0.3);
  EXPECT_DOUBLE_EQ(Figure(rows, "top1_agree"), 0.5);
  EXPECT_EQ(Figure(rows, "ref_tail_mass"), -1);  // only a top-k reference has a tail
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0].test, "kld");
  EXPECT_EQ(rows[0].subset, "full vocabulary; reference big");
  EXPECT_EQ(rows[0].dataset_sha256, "abc");
}

// Top-k: reduced against the reference cell's stored top-k distribution, a lower bound.
TEST(KldDerive, TopKSamplesAreReducedAgainstTheReferenceCell) {
  metrics::CellSamples ref;
  ref.cell.id = 1;
  ref.samples = {Stored(1, "kld_ref", 0,
                        {{"top_logprobs", {{-0.1, -3.0}}},
                         {"argmax", {4}},
                         {"logprob", {-0.1}},
                         {"request", {{"top_k", 2}, {"corpus_sha256", "abc"}}}})};
  const std::vector<store::SampleRecord> samples = {Stored(2, "kld", 0,
                                                           {{"ids_logprob", {{-0.1, -3.0}}},
                                                            {"argmax", {4}},
                                                            {"logprob", {-0.1}},
                                                            {"request", {{"ref_cell_id", 1}}}})};
  std::vector<metrics::ResultRow> rows;
  ASSERT_TRUE(DeriveKld({}, samples, {{1, &ref}}, &rows).ok());
  EXPECT_NEAR(Figure(rows, "kld_mean"), 0.0, 1e-9);  // the same distribution
  EXPECT_DOUBLE_EQ(Figure(rows, "top1_agree"), 1.0);
  EXPECT_GE(Figure(rows, "ref_tail_mass"), 0.0);
  ASSERT_FALSE(rows.empty());
  EXPECT_NE(rows[0].subset.find("lower bound: top-2"), std::string::npos);
}

TEST(KldDerive, TopKSamplesMissingTheirArraysAreNoCrash) {
  // Read back from a store: a missing array reads as empty (no positions), never as undefined
  // behaviour (a const json's operator[] on a missing key).
  metrics::CellSamples ref;
  ref.cell.id = 1;
  ref.samples = {Stored(1, "kld_ref", 0, {{"request", {{"top_k", 2}}}})};
  const std::vector<store::SampleRecord> samples = {
      Stored(2, "kld", 0, {{"ids_logprob", {{-0.1, -3.0}}}, {"request", {{"ref_cell_id", 1}}}})};
  std::vector<metrics::ResultRow> rows;
  EXPECT_TRUE(DeriveKld({}, samples, {{1, &ref}}, &rows).ok());
}

TEST(KldDerive, AMalformedSampleIsAnError) {
  std::vector<metrics::ResultRow> rows;
  const auto st = DeriveKld({},
                            {Stored(2, "kld", 0,
                                    {{"kl", "x"},
                                     {"ref_logprob", {-1.0}},
                                     {"logprob", {-1.0}},
                                     {"ref_argmax", {1}},
                                     {"argmax", {1}}})},
                            {}, &rows);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("stored kld data could not be read"), std::string::npos);
}

}  // namespace
}  // namespace pipette::workload
