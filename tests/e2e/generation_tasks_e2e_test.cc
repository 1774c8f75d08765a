// The generation and executed tasks (GSM8K, HumanEval, MBPP) run through `pipette run` on both
// bundled models: each completion is generated to a stop sequence, cut there, and judged; the
// stored verdicts are what the judge gives the stored completion (its extraction and pass@1 on
// fixed completions are tested in workload/task/judge_test.cc), and the report's figures count
// them.
#include <fmt/format.h>

#include <map>
#include <set>

#include "fixture.h"
#include "pipette/workload/task/judge.h"
#include "pipette/workload/task/score.h"

namespace pipette_e2e {
namespace {

namespace task = pipette::workload::task;

struct Model {
  std::string name, file;
};

class GenerationTasks : public E2E, public ::testing::WithParamInterface<Model> {};

TEST_P(GenerationTasks, RunJudgeAndReportThroughPipetteRun) {
  const Model& m = GetParam();
  ASSERT_TRUE(fs::exists(m.file)) << "run scripts/setup.sh first: " << m.file;
  constexpr int kItems = 2;
  fs::path ex = Write("ex.yaml", fmt::format("models: [{}]\nparams: {{threads: 2}}\nquality:\n"
                                             "  tasks: [{{task: gsm8k, limit: {}}}, "
                                             "{{task: humaneval, limit: {}}}, "
                                             "{{task: mbpp, limit: {}}}, "
                                             "{{task: lambada, limit: {}}}]\n",
                                             m.name, kItems, kItems, kItems, 2 * kItems));
  Output run = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  ASSERT_EQ(run.code, 0) << run.err;

  auto tools = pipette::sandbox::FindTools();
  ASSERT_TRUE(tools.ok()) << tools.error().message;
  pipette::ProcessCommandRunner runner;
  int stopped = 0;
  const json results = ReportJson()["results"];
  for (const std::string name : {"gsm8k", "humaneval", "mbpp"}) {
    auto def = task::LoadTaskDef(kSource + "/tasks/" + name + ".yaml");
    ASSERT_TRUE(def.ok()) << def.error().message;
    auto items = task::LoadTaskItems(*def, kSource + "/task-data/" + def->data, {kItems, 0});
    ASSERT_TRUE(items.ok()) << items.error().message;
    pipette::sandbox::Sandbox box(runner, *tools,
                                  pipette::sandbox::Limits{.wall_s = def->gen.timeout_s});
    const auto samples = Samples(1, "task:" + name);
    ASSERT_EQ(samples.size(), size_t(kItems)) << name;
    int ok = 0;
    for (size_t i = 0; i < samples.size(); ++i) {
      const json& raw = samples[i].raw;
      SCOPED_TRACE(name + " " + raw.dump());
      EXPECT_EQ(raw["id"], items->items[i].id);
      const std::string completion = raw["completion"];
      const std::string stop = raw["stop"];
      EXPECT_TRUE(stop == "stop" || stop == "eog" || stop == "max_tokens");
      stopped += stop == "stop";
      EXPECT_LE(raw["n_generated"].get<int>(), def->gen.max_tokens);
      for (const std::string& s : def->gen.stop) {
        EXPECT_EQ(completion.find(s), std::string::npos) << "not cut at " << json(s);
      }
      auto again = task::Judge(*def, items->items[i], completion, &box);
      ASSERT_TRUE(again.ok()) << again.error().message;
      EXPECT_EQ(raw["ok"], (*again)["ok"]);
      ok += raw["ok"][def->headline].template get<bool>();
    }
    EXPECT_DOUBLE_EQ(Value(results, 1, "task:" + name, "acc"), double(ok) / kItems);
    EXPECT_DOUBLE_EQ(Value(results, 1, "task:" + name, def->headline), double(ok) / kItems);
  }
  EXPECT_GT(stopped, 0) << "no generation ended at a stop sequence";
  // LAMBADA: the last word scored after its passage, right when greedy at every token.
  const auto lambada = Samples(1, "task:lambada");
  ASSERT_EQ(lambada.size(), size_t(2 * kItems));
  int greedy = 0;
  for (const auto& s : lambada) {
    EXPECT_GT(s.raw["n_tokens"].get<int>(), s.raw["n_context"].get<int>()) << s.raw.dump();
    EXPECT_LT(s.raw["logprob"].get<double>(), 0) << s.raw.dump();
    greedy += s.raw["ok"]["acc_greedy"].get<bool>();
  }
  EXPECT_DOUBLE_EQ(Value(results, 1, "task:lambada", "acc_greedy"), greedy / double(2 * kItems));
  const auto info = Samples(1, "task_info");
  ASSERT_EQ(info.size(), 4u);
  EXPECT_TRUE(info[1].raw.contains("sandbox")) << info[1].raw.dump();  // humaneval's
}

// `chat: true` gives each prompt through the model's own chat template (one user message), and
// records it; the same items raw take fewer prompt tokens (no turn markers, no default system
// prompt).
TEST_F(E2E, ATaskThroughTheChatTemplateIsRecordedSo) {
  for (const bool chat : {false, true}) {
    fs::path ex = Write("ex.yaml", fmt::format("models: [smollm2-135m-instruct-q4_1]\n"
                                               "params: {{threads: 2}}\nquality:\n  tasks: "
                                               "[{{task: gsm8k, limit: 1, chat: {}}}, "
                                               "{{task: arc_easy, limit: 2, chat: {}}}]\n",
                                               chat, chat));
    Output run = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
    ASSERT_EQ(run.code, 0) << run.err;
  }
  const auto raw = Samples(1, "task:gsm8k"), chat = Samples(2, "task:gsm8k");
  ASSERT_EQ(raw.size(), 1u);
  ASSERT_EQ(chat.size(), 1u);
  EXPECT_GT(chat[0].raw["n_prompt"].get<int>(), raw[0].raw["n_prompt"].get<int>() + 10);
  const auto info = Samples(2, "task_info");
  ASSERT_EQ(info.size(), 2u);
  for (const auto& s : info) {
    EXPECT_EQ(s.raw["prompt_format"], "chat_template");
    EXPECT_EQ(s.raw["chat_template"]["origin"], "tokenizer.chat_template");
    EXPECT_EQ(s.raw["chat_template"]["sha256"].get<std::string>().size(), 64u);
  }
  EXPECT_EQ(Samples(1, "task_info")[0].raw["prompt_format"], "raw");
  EXPECT_EQ(Samples(2, "task:arc_easy").size(), 2u);
}

// Choice rotation (issue 40 part 7): every item in each rotation of its choices; the usual figures
// stay those of the original order, and the rotations give the circular accuracy, the flip rate
// and the accuracy by the gold answer's slot, each consistent with the stored picks.
TEST_F(E2E, RotatedChoicesGiveCircularAccuracyFlipsAndSlots) {
  fs::path ex = Write("ex.yaml",
                      "models: [smollm2-135m-instruct-q4_1]\nparams: {threads: 2}\nquality:\n"
                      "  tasks: [{task: mmlu_0shot, per_group: 1, limit: 4, rotate: true}]\n");
  Output run = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  ASSERT_EQ(run.code, 0) << run.err;
  const auto samples = Samples(1, "task:mmlu_0shot");
  ASSERT_EQ(samples.size(), 16u);              // 4 questions, 4 rotations each
  std::map<std::string, std::set<int>> picks;  // base -> original choices picked
  std::map<std::string, bool> all_right;
  int right_rotated = 0, right_original = 0;
  for (const auto& s : samples) {
    auto item = task::ReadScoredItem(s.raw);
    ASSERT_TRUE(item.has_value());
    const int r = s.raw["rotation"];
    const int pick = task::Pick(*item, task::Normalisation::kSum);  // mmlu's acc
    const std::string base = s.raw["base"];
    picks[base].insert((pick + r) % 4);
    all_right.try_emplace(base, true);
    all_right[base] = all_right[base] && pick == item->gold;
    right_rotated += pick == item->gold;
    if (r == 0) right_original += pick == item->gold;
  }
  int circular = 0, flipped = 0;
  for (const auto& [base, p] : picks) {
    circular += all_right[base];
    flipped += p.size() > 1;
  }
  const json results = ReportJson()["results"];
  EXPECT_DOUBLE_EQ(Value(results, 1, "task:mmlu_0shot", "acc"), right_original / 4.0);
  EXPECT_DOUBLE_EQ(Value(results, 1, "task:mmlu_0shot", "acc_rotated"), right_rotated / 16.0);
  EXPECT_DOUBLE_EQ(Value(results, 1, "task:mmlu_0shot", "acc_circular"), circular / 4.0);
  EXPECT_DOUBLE_EQ(Value(results, 1, "task:mmlu_0shot", "flip_rate"), flipped / 4.0);
  int slots = 0;
  for (const json& r : results) {
    if (r["metric"] == "acc_rotated" && r["subset"].get<std::string>().rfind("slot:", 0) == 0) {
      ++slots;
      EXPECT_EQ(r["n"], 4) << r.dump();  // each slot holds the gold once per question
    }
  }
  EXPECT_EQ(slots, 4);
}

INSTANTIATE_TEST_SUITE_P(BundledModels, GenerationTasks,
                         ::testing::Values(Model{"smollm2-135m-instruct-q4_1", kModel},
                                           Model{"gemma3-270m-q4_k_m", kGemmaModel}),
                         [](const ::testing::TestParamInfo<Model>& p) {
                           return p.param.name.substr(0, p.param.name.find('-'));
                         });

}  // namespace
}  // namespace pipette_e2e
