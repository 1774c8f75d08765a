// The gen derivation (and its divergence figures) on stored sample JSON, as the runner stores it.
#include "pipette/workload/gen/derive.h"

#include <gtest/gtest.h>

namespace pipette::workload {
namespace {

using nlohmann::json;

store::SampleRecord Stored(int64_t cell, const std::string& test, int rep, json raw) {
  return {0, cell, test, rep, false, std::move(raw)};
}

json Item(const std::string& id, const std::string& expected) {
  return {{"id", id},
          {"language", "en"},
          {"task_type", "math"},
          {"checkers", {{{"type", "exact"}, {"spec", {{"value", expected}}}}}}};
}

const metrics::ResultRow* Find(const std::vector<metrics::ResultRow>& rows, const std::string& test,
                               const std::string& metric) {
  for (const auto& r : rows) {
    if (r.test == test && r.metric == metric && (r.test != "gen" || r.subset.empty())) return &r;
  }
  return nullptr;
}

TEST(GenDerive, EachOutputJudgedByItsCheckers) {
  metrics::CellSamples cell;
  cell.cell.id = 2;
  cell.samples = {Stored(2, "gen_dataset", 0, {{"path", "g.jsonl"}, {"sha256", "abc"}}),
                  Stored(2, "gen", 0, {{"item", Item("a", "42")}, {"text", "42"}}),
                  Stored(2, "gen", 1, {{"item", Item("b", "7")}, {"text", " 8 "}})};
  std::vector<metrics::ResultRow> rows;
  metrics::ResultRow base;
  base.EditCell().cell_id = 2;
  ASSERT_TRUE(DeriveGen(base, cell, {{2, &cell}}, &rows).ok());
  ASSERT_TRUE(Find(rows, "gen", "format_ok") && Find(rows, "gen", "task_acc"));
  EXPECT_DOUBLE_EQ(Find(rows, "gen", "format_ok")->value, 1.0);  // an exact checker: task role
  EXPECT_DOUBLE_EQ(Find(rows, "gen", "task_acc")->value, 0.5);
  EXPECT_EQ(Find(rows, "gen", "task_acc")->dataset_sha256, "abc");
  EXPECT_FALSE(Find(rows, "divergence", "identical"));  // no reference named
}

// An endpoint's items: one whose thinking spent the budget and one whose request stalled are
// failures whatever their text, and each is counted.
TEST(GenDerive, AnEndpointsExhaustedOrFailedItemIsNeverASuccess) {
  metrics::CellSamples cell;
  cell.cell.id = 2;
  cell.samples = {
      Stored(2, "gen_dataset", 0, {{"path", "g.jsonl"}, {"sha256", "abc"}}),
      Stored(2, "gen", 0,
             {{"item", Item("a", "42")}, {"text", "42"}, {"thinking_exhausted", false}}),
      Stored(2, "gen", 1, {{"item", Item("b", "")}, {"text", ""}, {"thinking_exhausted", true}}),
      Stored(2, "gen", 2,
             {{"item", Item("c", "")},
              {"text", ""},
              {"stop", "failed"},
              {"request_failed", {{"kind", "timeout"}, {"message", "no response in 1 s"}}}})};
  std::vector<metrics::ResultRow> rows;
  metrics::ResultRow base;
  base.EditCell().cell_id = 2;
  ASSERT_TRUE(DeriveGen(base, cell, {{2, &cell}}, &rows).ok());
  ASSERT_TRUE(Find(rows, "gen", "task_acc"));
  EXPECT_DOUBLE_EQ(Find(rows, "gen", "task_acc")->value, 1.0 / 3);  // "" would match "" else
  ASSERT_TRUE(Find(rows, "gen", "thinking_exhausted") && Find(rows, "gen", "failed_requests"));
  EXPECT_DOUBLE_EQ(Find(rows, "gen", "thinking_exhausted")->value, 1);
  EXPECT_DOUBLE_EQ(Find(rows, "gen", "failed_requests")->value, 1);
}

TEST(GenDerive, DivergenceComparesTheTokensWithTheReferenceCells) {
  metrics::CellSamples ref, cell;
  ref.cell.id = 1;
  ref.cell.status = "ok";
  ref.samples = {Stored(1, "gen", 0, {{"tokens", {1, 2, 3}}}),
                 Stored(1, "gen", 1, {{"tokens", {4, 5}}})};
  cell.cell.id = 2;
  cell.samples = {Stored(2, "gen_dataset", 0, {{"divergence_reference_cell_id", 1}}),
                  Stored(2, "gen", 0, {{"item", Item("a", "x")}, {"tokens", {1, 2, 3}}}),
                  Stored(2, "gen", 1, {{"item", Item("b", "y")}, {"tokens", {4, 6}}})};
  metrics::ResultRow base;
  base.EditCell().cell_id = 2;
  std::vector<metrics::ResultRow> rows;
  ASSERT_TRUE(DeriveGen(base, cell, {{1, &ref}, {2, &cell}}, &rows).ok());
  const auto* identical = Find(rows, "divergence", "identical");
  const auto* first = Find(rows, "divergence", "first_diff_index");
  ASSERT_TRUE(identical && first);
  EXPECT_DOUBLE_EQ(identical->value, 0.5);
  EXPECT_EQ(identical->subset, "reference cell 1");
  EXPECT_DOUBLE_EQ(first->value, 1.0);
}

TEST(GenDerive, SamplesMissingTheirFieldsAreNoCrash) {
  // Found by the store_json fuzz harness: a gen sample without `item`, an item without
  // `checkers`, and reference samples without `tokens` were read with a const json's operator[]
  // (undefined behaviour on a missing key). Each now reads as absent, or is an error.
  metrics::CellSamples ref, cell;
  ref.cell.id = 1;
  ref.cell.status = "ok";
  ref.samples = {Stored(1, "gen", 0, json::object())};
  cell.cell.id = 2;
  cell.samples = {Stored(2, "gen_dataset", 0, {{"divergence_reference_cell_id", 1}}),
                  Stored(2, "gen", 0, {{"item", {{"id", "a"}}}, {"text", "x"}})};
  metrics::ResultRow base;
  base.EditCell().cell_id = 2;
  std::vector<metrics::ResultRow> rows;
  ASSERT_TRUE(DeriveGen(base, cell, {{1, &ref}, {2, &cell}}, &rows).ok());
  const auto* identical = Find(rows, "divergence", "identical");
  ASSERT_TRUE(identical);
  EXPECT_DOUBLE_EQ(identical->value, 1.0);  // no tokens on either side: the same

  cell.samples = {Stored(2, "gen_dataset", 0, json::object()),
                  Stored(2, "gen", 0, {{"text", "x"}})};
  rows.clear();
  const auto st = DeriveGen(base, cell, {}, &rows);
  ASSERT_FALSE(st.ok());  // no item to judge: the stored data cannot be read
  EXPECT_NE(st.error().message.find("stored gen data could not be read"), std::string::npos);
}

TEST(GenDerive, AMalformedSampleIsAnError) {
  metrics::CellSamples cell;
  cell.samples = {Stored(2, "gen_dataset", 0, json::object()),
                  Stored(2, "gen", 0, {{"item", {{"checkers", 3}}}, {"text", "x"}})};
  std::vector<metrics::ResultRow> rows;
  const auto st = DeriveGen({}, cell, {}, &rows);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("stored gen data could not be read"), std::string::npos);
}

}  // namespace
}  // namespace pipette::workload
