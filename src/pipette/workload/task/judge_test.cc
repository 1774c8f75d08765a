#include "pipette/workload/task/judge.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "pipette/testing/paths.h"

namespace pipette::workload::task {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The shipped definitions on their real data (set up by scripts/setup.sh), judging fixed
// completions: the datasets' own solutions, and hand-made correct and incorrect ones.
class TaskJudge : public ::testing::Test {
 protected:
  void Load(const std::string& name, int limit) {
    const fs::path src = pipette::testing::SourceDir();
    auto def = LoadTaskDef((src / "tasks" / (name + ".yaml")).string());
    ASSERT_TRUE(def.ok()) << def.error().message;
    def_ = *def;
    auto dir = TaskDataDir(def_, (src / "task-data").string());
    ASSERT_TRUE(dir.ok()) << dir.error().message;
    auto items = LoadTaskItems(def_, *dir, {limit, 0});
    ASSERT_TRUE(items.ok()) << items.error().message;
    items_ = items->items;
    if (def_.kind == Kind::kExecute) {
      auto tools = sandbox::FindTools();
      ASSERT_TRUE(tools.ok()) << tools.error().message;
      box_ = std::make_unique<sandbox::Sandbox>(
          runner_, *tools, sandbox::Limits{.wall_s = def_.gen.timeout_s, .cpu_s = 10});
    }
  }
  json Verdicts(const Item& item, const std::string& completion) {
    auto j = Judge(def_, item, completion, box_.get());
    EXPECT_TRUE(j.ok()) << j.error().message;
    return j.ok() ? *j : json::object();
  }
  bool Passes(const Item& item, const std::string& completion) {
    return Verdicts(item, completion)["ok"].value(kPassAt1, false);
  }
  TaskDef def_;
  std::vector<Item> items_;
  ProcessCommandRunner runner_;
  std::unique_ptr<sandbox::Sandbox> box_;
};

TEST_F(TaskJudge, Gsm8kMatchesTheAnswerStrictlyAndFlexibly) {
  Load("gsm8k", 3);
  ASSERT_EQ(items_.size(), 3u);
  const Item& janet = items_[0];  // gold "... #### 18"
  json v = Verdicts(janet, " She sells 16 - 3 - 4 = 9 eggs, for 9 * 2 = $18. So the answer is 18.");
  EXPECT_EQ(v["ok"], (json{{"exact_match_strict", true}, {"exact_match_flexible", true}})) << v;
  EXPECT_EQ(v["answers"]["flexible"], "18.");
  // Thousands separators and a dollar sign are ignored, as lm-eval's regexes_to_ignore do.
  Item big = janet;
  big.target = "#### 18000";
  v = Verdicts(big, " So the answer is $18,000.");
  EXPECT_EQ(v["ok"], (json{{"exact_match_strict", false}, {"exact_match_flexible", true}})) << v;
  // The strict form wants "the answer is N"; the flexible one takes the last number.
  v = Verdicts(janet, " 9 eggs at $2 make 18");
  EXPECT_EQ(v["ok"], (json{{"exact_match_strict", false}, {"exact_match_flexible", true}})) << v;
  // A wrong answer, and the right number followed by another.
  v = Verdicts(janet, " So the answer is 16.");
  EXPECT_EQ(v["ok"], (json{{"exact_match_strict", false}, {"exact_match_flexible", false}})) << v;
  v = Verdicts(janet, " So the answer is 18. Then 20 more.");
  EXPECT_EQ(v["ok"], (json{{"exact_match_strict", true}, {"exact_match_flexible", false}})) << v;
  v = Verdicts(janet, " I do not know.");
  EXPECT_EQ(v["answers"]["flexible"], kInvalidAnswer);
  EXPECT_EQ(v["ok"]["exact_match_flexible"], false);
}

TEST_F(TaskJudge, HumanEvalPassesEveryCanonicalSolutionAndFailsWrongOnes) {
  Load("humaneval", 0);
  ASSERT_EQ(items_.size(), 164u);
  int passed = 0;
  for (const Item& item : items_) {
    passed += Passes(item, item.target);  // the dataset's canonical_solution
  }
  EXPECT_EQ(passed, 164);
  const Item& first = items_[0];  // has_close_elements(numbers, threshold)
  EXPECT_TRUE(Passes(first,
                     "    return any(abs(a - b) < threshold\n"
                     "               for i, a in enumerate(numbers)\n"
                     "               for j, b in enumerate(numbers) if i != j)\n"));
  EXPECT_FALSE(Passes(first, "    return False\n"));
  EXPECT_FALSE(Passes(first,
                      "    return any(abs(a - b) <= threshold for a in numbers for b in "
                      "numbers)\n"));  // compares each number with itself
  EXPECT_FALSE(Passes(first, "    return True\n    sys.exit(0)\n"));
  // A program that exits 0 before its tests run counts as passed, as in lm-eval's code_eval:
  // the exit status is the verdict (docs/tasks.md says so).
  const json v = Verdicts(first, "    import os\n    os._exit(0)\n");
  EXPECT_EQ(v["program"]["outcome"], "passed");
  // Hostile completions: contained, scored as failures, and the next item is judged.
  EXPECT_FALSE(Passes(first, "    import os\n    while True:\n        os.fork()\n"));
  EXPECT_FALSE(Passes(first, "    return open('/etc/passwd').read() == ''\n"));
  EXPECT_FALSE(Passes(first, "    while True:\n        pass\n"));
  EXPECT_TRUE(Passes(items_[1], items_[1].target));
}

TEST_F(TaskJudge, MbppPassesTheDatasetsOwnCodeAndFailsWrongCode) {
  Load("mbpp", 60);
  ASSERT_EQ(items_.size(), 60u);
  int passed = 0;
  for (const Item& item : items_) passed += Passes(item, item.target);  // the dataset's code
  EXPECT_EQ(passed, 60);
  const Item& first = items_[0];  // remove_Occ(s, ch)
  EXPECT_TRUE(Passes(first,
                     "def remove_Occ(s, ch):\n"
                     "    i = s.find(ch)\n"
                     "    if i >= 0:\n"
                     "        s = s[:i] + s[i + 1:]\n"
                     "    j = s.rfind(ch)\n"
                     "    if j >= 0:\n"
                     "        s = s[:j] + s[j + 1:]\n"
                     "    return s\n"));
  EXPECT_FALSE(Passes(first, "def remove_Occ(s, ch):\n    return s[1:-1]\n"));
  EXPECT_FALSE(Passes(first, "def remove_occ(s, ch):\n    return s\n"));  // the wrong name
}

}  // namespace
}  // namespace pipette::workload::task
