#include "pipette/metrics/items.h"

#include <gtest/gtest.h>

namespace pipette::metrics {
namespace {

TEST(McItems, PickTheHighestSumAndTheHighestSumPerByteFirstOnTies) {
  // Sums -6 and -4: acc picks 1. Per byte -6/12 = -0.5 beats -4/4 = -1: acc_norm picks 0.
  EXPECT_EQ(PickChoice({{-6, 3, 12}, {-4, 2, 4}}).chosen, 1);
  EXPECT_EQ(PickChoice({{-6, 3, 12}, {-4, 2, 4}}).chosen_norm, 0);
  const McPick tie = PickChoice({{-1, 1, 2}, {-1, 1, 2}});
  EXPECT_EQ(tie.chosen, 0);
  EXPECT_EQ(tie.chosen_norm, 0);
  EXPECT_EQ(PickChoice({}).chosen, -1);
}

TEST(McItems, EveryStoredItemOfEveryLiveCellWithItsChoices) {
  store::RunRecord run;
  run.id = 7;
  CellSamples live;
  live.cell.id = 3;
  live.cell.index = 0;
  live.cell.status = "ok";
  live.cell.model_name = "smol";
  nlohmann::json raw = {{"id", "en-2"},
                        {"answer", 0},
                        {"language", "en"},
                        {"task_type", "fact"},
                        {"choices",
                         {{{"bytes", 5}, {"n_tokens", 2}, {"logprob", {-1.0, -0.5}}},
                          {{"bytes", 4}, {"n_tokens", 1}, {"logprob", {-3.0}}}}}};
  live.samples.push_back({1, 3, "mc_dataset", 0, false, {{"path", "x"}}});
  live.samples.push_back({2, 3, "mc", 4, false, raw});
  CellSamples superseded = live;
  superseded.cell.id = 4;
  superseded.cell.status = "superseded";
  ResultRow row;
  row.EditCell().cell_id = 3;
  row.EditCell().quant = "Q4_1";
  const auto items = DeriveMcItems(run, {live, superseded}, {row});
  ASSERT_EQ(items.size(), 1u);
  const McItemRow& m = items[0];
  EXPECT_EQ(m.run_id, 7);
  EXPECT_EQ(m.item, 4);
  EXPECT_EQ(m.id, "en-2");
  EXPECT_EQ(m.quant, "Q4_1");
  ASSERT_EQ(m.choices.size(), 2u);
  EXPECT_DOUBLE_EQ(m.choices[0].logprob, -1.5);
  EXPECT_EQ(m.choices[0].n_tokens, 2);
  EXPECT_EQ(m.choices[1].bytes, 4);
  EXPECT_EQ(m.pick.chosen, 0);
  EXPECT_TRUE(m.correct);
  EXPECT_TRUE(m.correct_norm);  // -0.3 per byte beats -0.75
}

// A stored mc sample of another shape (from a store, so from outside): no throw; an item whose
// logprobs are not numbers has no choices, and is not correct (items_test's 3rd sample: no item).
TEST(McItems, StoredValuesOfAnotherTypeReadAsAbsent) {
  CellSamples c;
  c.cell.id = 3;
  c.cell.status = "ok";
  c.samples.push_back({1,
                       3,
                       "mc",
                       0,
                       false,
                       {{"id", 5},
                        {"answer", "0"},
                        {"choices", {{{"bytes", "5"}, {"n_tokens", 2}, {"logprob", {"-1"}}}}}}});
  c.samples.push_back({2, 3, "mc", 1, false, {{"answer", 0}, {"choices", "none"}}});
  c.samples.push_back({3, 3, "mc", 2, false, nlohmann::json::array({1, 2})});
  ResultRow row;
  row.EditCell().cell_id = 3;
  std::vector<McItemRow> items;
  ASSERT_NO_THROW(items = DeriveMcItems({}, {c}, {row}));
  ASSERT_EQ(items.size(), 2u);  // a sample that is not an object is no item
  for (const McItemRow& m : items) {
    EXPECT_TRUE(m.choices.empty());
    EXPECT_EQ(m.pick.chosen, -1);
    EXPECT_FALSE(m.correct);
  }
  EXPECT_EQ(items[0].id, "");
  EXPECT_EQ(items[0].answer, -1);
}

}  // namespace
}  // namespace pipette::metrics
