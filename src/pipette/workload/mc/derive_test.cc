// The mc derivation on stored sample JSON, as the runner stores it.
#include "pipette/workload/mc/derive.h"

#include <gtest/gtest.h>

namespace pipette::workload {
namespace {

using nlohmann::json;

store::SampleRecord Stored(const std::string& test, int rep, json raw) {
  return {0, 1, test, rep, false, std::move(raw)};
}

json Choice(double logprob, int bytes) {
  return {{"logprob", logprob}, {"n_tokens", 1}, {"bytes", bytes}};
}

const metrics::ResultRow* Find(const std::vector<metrics::ResultRow>& rows,
                               const std::string& metric, const std::string& subset) {
  for (const auto& r : rows) {
    if (r.metric == metric && r.subset == subset) return &r;
  }
  return nullptr;
}

// acc picks the highest sum, acc_norm the highest per byte (the first on ties).
TEST(McDerive, AccAndAccNormCountThePicksWithIntervalsAndSubsets) {
  const std::vector<store::SampleRecord> samples = {
      Stored("mc_dataset", 0, {{"path", "mc.jsonl"}, {"sha256", "abc"}}),
      Stored("mc", 0,
             {{"answer", 0},
              {"language", "en"},
              {"task_type", "fact"},
              {"text_tokens", 10},
              {"text_chars", 40},
              {"choices", {Choice(-1, 1), Choice(-5, 10)}}}),
      Stored("mc", 1,
             {{"answer", 1},
              {"language", "en"},
              {"task_type", "fact"},
              {"text_tokens", 10},
              {"text_chars", 40},
              {"choices", {Choice(-3, 3), Choice(-2, 2)}}})};
  std::vector<metrics::ResultRow> rows;
  ASSERT_TRUE(DeriveMc({}, samples, &rows).ok());
  const auto* acc = Find(rows, "acc", "");
  const auto* norm = Find(rows, "acc_norm", "");
  ASSERT_TRUE(acc && norm);
  EXPECT_EQ(acc->test, "mc");
  EXPECT_DOUBLE_EQ(acc->value, 1.0);
  EXPECT_DOUBLE_EQ(norm->value, 0.0);
  EXPECT_EQ(acc->samples, (std::vector<double>{1, 1}));
  ASSERT_TRUE(acc->ci_low.has_value());
  EXPECT_LT(*acc->ci_low, 1.0);
  EXPECT_TRUE(Find(rows, "acc", "en") && Find(rows, "acc", "fact") && Find(rows, "acc", "en/fact"));
  const auto* density = Find(rows, "tok_per_kchar", "");
  ASSERT_TRUE(density);
  EXPECT_DOUBLE_EQ(density->value, 250.0);
}

// An item without an answer and without choices was counted right (no pick, -1, equals the
// missing answer, -1): it is wrong.
TEST(McDerive, NoPickIsNeverRight) {
  const std::vector<store::SampleRecord> samples = {
      Stored("mc_dataset", 0, {{"path", "mc.jsonl"}, {"sha256", "abc"}}),
      Stored("mc", 0, {{"choices", json::array()}})};
  std::vector<metrics::ResultRow> rows;
  ASSERT_TRUE(DeriveMc({}, samples, &rows).ok());
  const auto* acc = Find(rows, "acc", "");
  ASSERT_TRUE(acc);
  EXPECT_DOUBLE_EQ(acc->value, 0.0);
}

// An answer past int64 (or of any size past the choices) is no answer, never undefined behaviour:
// the item is wrong.
TEST(McDerive, AnAnswerPastAnyChoiceIsNoAnswer) {
  for (const json& answer : {json(3.54526e+29), json(-1e300), json(int64_t{1} << 40)}) {
    const std::vector<store::SampleRecord> samples = {
        Stored("mc_dataset", 0, {{"path", "mc.jsonl"}}),
        Stored("mc", 0, {{"answer", answer}, {"choices", {Choice(-1, 1), Choice(-5, 10)}}})};
    std::vector<metrics::ResultRow> rows;
    ASSERT_TRUE(DeriveMc({}, samples, &rows).ok());
    const auto* acc = Find(rows, "acc", "");
    ASSERT_TRUE(acc);
    EXPECT_DOUBLE_EQ(acc->value, 0.0) << answer.dump();
  }
}

TEST(McDerive, AMalformedSampleIsAnError) {
  std::vector<metrics::ResultRow> rows;
  const auto st = DeriveMc(
      {}, {Stored("mc_dataset", 0, json::object()), Stored("mc", 0, {{"answer", "zero"}})}, &rows);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("stored mc data could not be read"), std::string::npos);
}

}  // namespace
}  // namespace pipette::workload
