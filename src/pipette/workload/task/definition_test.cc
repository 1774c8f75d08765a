#include "pipette/workload/task/definition.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "pipette/testing/paths.h"

namespace pipette::workload::task {
namespace {

namespace fs = std::filesystem;

std::string Problem(const std::string& yaml) {
  auto def = ParseTaskDef(yaml, "/x/my_task.yaml");
  EXPECT_FALSE(def.ok());
  if (def.ok()) return "";
  EXPECT_EQ(def.error().exit_code, 2);
  return def.error().message;
}

constexpr const char* kHead = "title: t\nconvention: c\nlicence: l\ndata: d\n";

TEST(TaskDefTest, ReadsARowTask) {
  auto def = ParseTaskDef(std::string(kHead) +
                              "items: {files: a.jsonl, choices: [sol1, sol2], gold: label}\n"
                              "prompt: 'Goal: {goal}\\nAnswer:'\ncontinuation: ' {choice}'\n"
                              "scoring: {kind: choice, metric: acc_per_char}\n",
                          "/x/piqa_rows.yaml");
  ASSERT_TRUE(def.ok()) << def.error().message;
  EXPECT_EQ(def->name, "piqa_rows");
  EXPECT_EQ(def->rows->files, std::vector<std::string>{"a.jsonl"});
  EXPECT_EQ(def->rows->choice_fields, (std::vector<std::string>{"sol1", "sol2"}));
  EXPECT_EQ(def->metric, Normalisation::kPerChar);
  EXPECT_EQ(def->sha256.size(), 64u);
}

TEST(TaskDefTest, ProblemsNameTheirPlace) {
  EXPECT_NE(Problem(std::string(kHead) + "items: {olmes: o}\nscoring: {kind: choice, "
                                         "metric: acc_norm}\n")
                .find("/x/my_task.yaml:6:"),
            std::string::npos);
  EXPECT_NE(Problem(std::string(kHead) + "items: {olmes: o}\nscoring: {kind: choice, "
                                         "metric: acc_norm}\n")
                .find("acc_per_char"),
            std::string::npos);
  EXPECT_NE(Problem(std::string(kHead) + "items: {olmes: o}\nprompt: x\nscoring: {kind: "
                                         "choice, metric: acc_sum}\n")
                .find("'prompt' is for items read from rows"),
            std::string::npos);
  EXPECT_NE(Problem(std::string(kHead) + "items: {files: a, choices: c, gold: g}\n"
                                         "prompt: '{q|nope}'\ncontinuation: x\n"
                                         "scoring: {kind: choice, metric: acc_sum}\n")
                .find("unknown filter 'nope'"),
            std::string::npos);
  EXPECT_NE(Problem(std::string(kHead) + "items: {olmes: o}\nscoring: {kind: guess, "
                                         "metric: acc_sum}\n")
                .find("the kinds are: choice"),
            std::string::npos);
  EXPECT_NE(Problem("title: t\ntitel: x\n").find("unknown key 'titel'"), std::string::npos);
  EXPECT_NE(Problem(std::string(kHead) + "items: {olmes: o}\n").find("'scoring'"),
            std::string::npos);
  EXPECT_NE(Problem("title: [").find("not YAML"), std::string::npos);
  EXPECT_NE(Problem(std::string(kHead) + "filters: {strip: [strip]}\nitems: {olmes: o}\n")
                .find("built in"),
            std::string::npos);
}

// A generation task's scoring: its extractors, normalisation and metric, each problem placed.
TEST(TaskDefTest, GenerationScoringIsReadAndChecked) {
  const std::string head = std::string(kHead) + "items: {olmes: o}\ntarget: '{doc.answer}'\n";
  auto def = ParseTaskDef(head +
                              "scoring:\n  kind: generate\n  max_tokens: 64\n"
                              "  stop: [\"\\n\\n\"]\n"
                              "  extract: {flexible: {regex: '([0-9]+)', select: last}}\n"
                              "  ignore: [',']\n  ignore_case: true\n"
                              "  metric: exact_match_flexible\n",
                          "/x/gen.yaml");
  ASSERT_TRUE(def.ok()) << def.error().message;
  EXPECT_EQ(def->kind, Kind::kGenerate);
  EXPECT_EQ(def->gen.max_tokens, 64);
  EXPECT_EQ(def->gen.stop, std::vector<std::string>{"\n\n"});
  EXPECT_EQ(def->headline, "exact_match_flexible");
  EXPECT_EQ(def->Metrics(), std::vector<std::string>{"exact_match_flexible"});
  ASSERT_EQ(def->gen.answer.extract.size(), 1u);
  EXPECT_TRUE(def->gen.answer.extract[0].last);
  auto problem = [&](const std::string& scoring) {
    return Problem(head + "scoring:\n  kind: generate\n  max_tokens: 64\n" + scoring);
  };
  EXPECT_NE(problem("  extract: {loose: {regex: x}}\n  metric: exact_match_loose\n")
                .find("unknown key 'loose'"),
            std::string::npos);
  EXPECT_NE(problem("  extract: {strict: {regex: '(x'}}\n  metric: exact_match_strict\n")
                .find("/x/my_task.yaml:10:"),
            std::string::npos);
  EXPECT_NE(problem("  extract: {strict: {regex: '(x'}}\n  metric: exact_match_strict\n")
                .find("is not valid"),
            std::string::npos);
  EXPECT_NE(problem("  extract: {strict: {regex: x, select: middle}}\n"
                    "  metric: exact_match_strict\n")
                .find("first or last"),
            std::string::npos);
  EXPECT_NE(problem("  extract: {strict: {regex: x}}\n  metric: exact_match_flexible\n")
                .find("this task's are exact_match_strict"),
            std::string::npos);
  EXPECT_NE(Problem(std::string(kHead) + "items: {olmes: o}\nscoring: {kind: generate, "
                                         "max_tokens: 8, extract: {strict: {regex: x}}, "
                                         "metric: exact_match_strict}\n")
                .find("missing required field 'target'"),
            std::string::npos);
  EXPECT_NE(Problem(std::string(kHead) + "items: {olmes: o}\nscoring: {kind: execute, "
                                         "max_tokens: 8, metric: pass_at_1}\n")
                .find("'scoring.program'"),
            std::string::npos);
  EXPECT_NE(Problem(std::string(kHead) + "items: {files: a, choices: c}\nprompt: p\n"
                                         "target: t\nscoring: {kind: execute, max_tokens: 8, "
                                         "program: {after: x}, metric: pass_at_1}\n")
                .find("'items.choices' is for choice tasks"),
            std::string::npos);
}

TEST(TaskDefTest, AGreedyTaskTakesItsOneMetric) {
  const std::string head = std::string(kHead) + "items: {olmes: o}\n";
  auto def = ParseTaskDef(head + "scoring: {kind: greedy, metric: acc_greedy}\n", "/x/g.yaml");
  ASSERT_TRUE(def.ok()) << def.error().message;
  EXPECT_EQ(def->kind, Kind::kGreedy);
  EXPECT_FALSE(Generates(def->kind));
  EXPECT_EQ(def->Metrics(), std::vector<std::string>{"acc_greedy"});
  EXPECT_NE(Problem(head + "scoring: {kind: greedy, metric: acc_sum}\n")
                .find("a greedy task's is acc_greedy"),
            std::string::npos);
  EXPECT_NE(Problem(head + "scoring: {kind: greedy, metric: acc_greedy, stop: [x]}\n")
                .find("unknown key 'stop'"),
            std::string::npos);
}

// Every shipped definition reads (its data is set-up's: task_data covers that).
TEST(TaskDefTest, ShippedDefinitionsRead) {
  const fs::path dir = fs::path(pipette::testing::SourceDir()) / "tasks";
  int n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    auto def = LoadTaskDef(entry.path().string());
    EXPECT_TRUE(def.ok()) << entry.path() << ": " << def.error().message;
    if (def) {
      EXPECT_FALSE(def->convention.empty());
      EXPECT_FALSE(def->compare_with.empty()) << entry.path();
    }
    ++n;
  }
  EXPECT_GE(n, 11);
}

}  // namespace
}  // namespace pipette::workload::task
