#include "pipette/workload/task/spec.h"

#include <gtest/gtest.h>

#include <fstream>

#include "pipette/config/canonical.h"
#include "pipette/workload/spec_testing.h"

namespace pipette::workload::task {
namespace {

TEST(TasksSpec, WrittenAsNamesOrMappings) {
  auto ex = ParseWritten(kSmol + "quality:\n  tasks: [arc_easy, {task: mmlu_5shot, limit: 3}]\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  EXPECT_EQ(config::CanonicalForm(*ex)["quality"]["tasks"],
            (nlohmann::json{{{"task", "arc_easy"}}, {{"task", "mmlu_5shot"}, {"limit", 3}}}));
  EXPECT_EQ(WrittenErrorOf(kSmol + "quality:\n  tasks: [{task: a, limt: 3}]\n"),
            "ex.yaml:3:21: unknown key 'limt' in tasks[0] (did you mean 'limit'?)");
  EXPECT_EQ(WrittenErrorOf(kSmol + "quality:\n  tasks: [a, a]\n"),
            "ex.yaml:3:14: task 'a' is listed twice");
  EXPECT_NE(WrittenErrorOf(kSmol + "quality:\n  tasks:\n").find("takes a list of tasks"),
            std::string::npos);
}

// A definition and its rows in the test's folder: resolving reads them and hashes the items.
class TasksResolve : public SpecTest {
 protected:
  void SetUp() override {
    SpecTest::SetUp();
    std::filesystem::create_directories(dir_.path() / "data");
    std::ofstream(dir_ / "data/rows.jsonl")
        << R"({"q": "1+1?", "choices": ["2", "3"], "a": 0, "g": "x"})"
        << "\n"
        << R"({"q": "2+2?", "choices": ["5", "4"], "a": 1, "g": "y"})"
        << "\n";
    std::ofstream(dir_ / "sums.yaml")
        << "title: t\nconvention: c\nlicence: l\ndata: data\n"
           "items: {files: rows.jsonl, choices: choices, gold: a, group: '{g}'}\n"
           "prompt: '{q}'\ncontinuation: ' {choice}'\nscoring: {kind: choice, metric: acc_sum}\n";
    opts_.tasks_dir = (dir_.path() / "shipped").string();
  }
};

TEST_F(TasksResolve, ADefinitionByPathIsReadAndItsItemsHashed) {
  auto ex = Parse(kSmol + "quality:\n  tasks: [{task: sums.yaml, per_group: 1, limit: 1}]\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  const TasksSpec* spec = TasksSpecOf(*ex);
  ASSERT_NE(spec, nullptr);
  ASSERT_EQ(spec->tasks.size(), 1u);
  const TaskSpec& t = spec->tasks[0];
  EXPECT_EQ(t.name, "sums");
  EXPECT_EQ(t.n_items, 1);
  EXPECT_EQ(t.n_available, 2);
  EXPECT_EQ(t.items_sha256.size(), 64u);
  EXPECT_EQ(t.max_bytes, int64_t(std::string("1+1? 3").size()));
  EXPECT_EQ(ex->Resolved()["quality"]["tasks"][0]["items_sha256"], t.items_sha256);
}

TEST_F(TasksResolve, ASampleIsSeededAndRecorded) {
  auto ex = Parse(kSmol + "quality:\n  tasks: [{task: sums.yaml, sample: 1, seed: 9}]\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  const TaskSpec& t = TasksSpecOf(*ex)->tasks[0];
  EXPECT_EQ(t.selection.sample, 1);
  EXPECT_EQ(t.selection.seed, 9);
  EXPECT_EQ(t.n_items, 1);
  const nlohmann::json resolved = ex->Resolved()["quality"]["tasks"][0];
  EXPECT_EQ(resolved["sample"], 1);
  EXPECT_EQ(resolved["seed"], 9);
  auto seeded = Parse(kSmol + "quality:\n  tasks: [{task: sums.yaml, sample: 1}]\n");
  ASSERT_TRUE(seeded.ok());
  EXPECT_EQ(TasksSpecOf(*seeded)->tasks[0].selection.seed, 1234);  // OLMES's subsample seed
  EXPECT_NE(WrittenErrorOf(kSmol + "quality:\n  tasks: [{task: a, sample: 5, limit: 3}]\n")
                .find("neither limit: nor per_group:"),
            std::string::npos);
  EXPECT_NE(WrittenErrorOf(kSmol + "quality:\n  tasks: [{task: a, seed: 3}]\n")
                .find("seed: goes with sample:"),
            std::string::npos);
}

TEST_F(TasksResolve, ProblemsAreBadInputAtTheirPlace) {
  auto unknown = Parse(kSmol + "quality:\n  tasks: [arc_esy]\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().exit_code, 2);
  EXPECT_NE(unknown.error().message.find("ex.yaml:3:11: no task 'arc_esy'"), std::string::npos)
      << unknown.error().message;
  auto missing = Parse(kSmol + "quality:\n  tasks: [nothere.yaml]\n");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().exit_code, 2);
  std::ofstream(dir_ / "flat.yaml") << "title: t\nconvention: c\nlicence: l\ndata: data\n"
                                       "items: {files: rows.jsonl, choices: choices, gold: a}\n"
                                       "prompt: '{q}'\ncontinuation: ' {choice}'\n"
                                       "scoring: {kind: choice, metric: acc_sum}\n";
  auto groups = Parse(kSmol + "quality:\n  tasks: [{task: flat.yaml, per_group: 1}]\n");
  ASSERT_FALSE(groups.ok());
  EXPECT_NE(groups.error().message.find("has no groups"), std::string::npos);
  auto twice = Parse(kSmol + "quality:\n  tasks: [sums.yaml, {task: sums.yaml, limit: 1}]\n");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().message.find("listed twice"), std::string::npos);
}

}  // namespace
}  // namespace pipette::workload::task
