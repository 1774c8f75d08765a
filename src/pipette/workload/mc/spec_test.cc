#include "pipette/workload/mc/spec.h"

#include <gtest/gtest.h>

#include <fstream>

#include "pipette/config/canonical.h"
#include "pipette/workload/dataset_spec.h"
#include "pipette/workload/spec_testing.h"

namespace pipette::workload {
namespace {

TEST(McSpec, ParsedAsWrittenAndNothingElse) {
  auto ex = ParseWritten(kSmol + "quality:\n  mc:\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  const auto* mc = ex->quality.Get<WrittenDataset>("mc");
  ASSERT_NE(mc, nullptr);
  EXPECT_FALSE(mc->dataset.path.has_value());
  EXPECT_FALSE(mc->limit.has_value());
  EXPECT_EQ(config::CanonicalForm(*ex)["quality"]["mc"], nlohmann::json::object());
  auto limited = ParseWritten(kSmol + "quality:\n  mc: {limit: 3}\n");
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(config::CanonicalForm(*limited)["quality"]["mc"], (nlohmann::json{{"limit", 3}}));
  // mc has no template: the key is unknown there.
  EXPECT_EQ(WrittenErrorOf(kSmol + "quality:\n  mc:\n    template_options: {a: 1}\n"),
            "ex.yaml:4:5: unknown key 'template_options' in mc");
  EXPECT_EQ(WrittenErrorOf(kSmol + "quality:\n  mc: 3\n"),
            "ex.yaml:3:7: mc: takes a mapping (dataset:, limit:) or nothing");
}

TEST(McSpec, PromptAndContinuation) {
  EXPECT_EQ(McPrompt("Why?") + McContinuation("Because"), "Question: Why?\nAnswer: Because");
}

using McSpecResolve = SpecTest;

TEST_F(McSpecResolve, ItemsAreCountedAndBounded) {
  auto ex = Parse(kSmol + "quality:\n  mc: {dataset: " + opts_.datasets_dir +
                  "/mc/pipette-mc-v1.jsonl, limit: 3}\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  const McSpec* mc = McSpecOf(*ex);
  ASSERT_NE(mc, nullptr);
  EXPECT_EQ(mc->limit, 3);
  EXPECT_GT(mc->n_items, 3);
  EXPECT_GT(mc->max_bytes, 0);
  EXPECT_EQ(
      ex->Resolved()["quality"]["mc"],
      (nlohmann::json{{"dataset", opts_.datasets_dir + "/mc/pipette-mc-v1.jsonl"}, {"limit", 3}}));
}

// The context is sized for the items that run (the first `limit`), and the longest is known by
// its line, for a message when a model's context cannot hold it.
TEST_F(McSpecResolve, TheLongestItemThatRunsIsKnownByItsLine) {
  const std::string item = R"({"id": "ID", "question": "Q", "choices": ["a", "b"], "answer": 0})";
  auto line = [&](const std::string& id, const std::string& question) {
    std::string l = item;
    l.replace(l.find("ID"), 2, id);
    l.replace(l.find("\"Q\""), 3, "\"" + question + "\"");
    return l + "\n";
  };
  std::ofstream(dir_ / "long.jsonl")
      << line("a", "short?") << "\n"
      << line("b", "a bit longer?") << line("c", std::string(5000, 'x'));
  auto all = Parse(kSmol + "quality:\n  mc: {dataset: long.jsonl}\n");
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(McSpecOf(*all)->max_line, 4);  // after a blank line
  EXPECT_EQ(McSpecOf(*all)->max_bytes, int64_t(McPrompt(std::string(5000, 'x')).size() + 2));
  auto two = Parse(kSmol + "quality:\n  mc: {dataset: long.jsonl, limit: 2}\n");
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(McSpecOf(*two)->max_line, 3);
  EXPECT_EQ(McSpecOf(*two)->max_bytes, int64_t(McPrompt("a bit longer?").size() + 2));
}

TEST_F(McSpecResolve, ADatasetWithoutItemsIsRefused) {
  std::ofstream(dir_ / "none.jsonl") << "\n\n";
  EXPECT_EQ(ErrorOf(kSmol + "quality:\n  mc: {dataset: none.jsonl}\n"),
            "none.jsonl: no items (the file is empty or has only blank lines)");
}

}  // namespace
}  // namespace pipette::workload
