#include "pipette/workload/task/items.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "pipette/util/temp_dir.h"
#include "pipette/workload/task/llama_files.h"

namespace pipette::workload::task {
namespace {

namespace fs = std::filesystem;

void Put(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void PutGz(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  gzwrite(f, text.data(), unsigned(text.size()));
  gzclose(f);
}

class TaskItemsTest : public ::testing::Test {
 protected:
  // One few-shot example for each of the subjects a_sub and b_sub.
  void PutExamples() {
    Put(dir_ / "data/q/a_sub/dev.jsonl",
        R"({"question": "Ex?", "subject": "a_sub", "choices": ["m", "n"], "answer": 1})"
        "\n");
    Put(dir_ / "data/q/b_sub/dev.jsonl",
        R"({"question": "Ey?", "subject": "b_sub", "choices": ["m", "n"], "answer": 0})"
        "\n");
  }
  TaskDef Def(const std::string& yaml) {
    Put(dir_ / "t.yaml", yaml);
    auto def = LoadTaskDef(dir_ / "t.yaml");
    EXPECT_TRUE(def.ok()) << def.error().message;
    return def ? *def : TaskDef{};
  }
  TempDir dir_{"pipette-task-items"};
};

// An MMLU-like task: rows per subject, the first examples of a dev file before each item.
constexpr const char* kLetters = R"(title: t
convention: c
licence: l
data: data
items:
  files: [q/*/test.jsonl]
  choices: choices
  gold: answer
  group: "{subject}"
fewshot: {files: "q/{subject}/dev.jsonl", n: 1}
description: "About {subject|words}.\n\n"
prompt: "{question}\n{choices|lettered}\nAnswer:"
continuation: " {letter}"
scoring: {kind: choice, metric: acc_sum}
)";

TEST_F(TaskItemsTest, RowsBecomePromptsWithExamples) {
  Put(dir_ / "data/q/b_sub/test.jsonl",
      R"({"question": "B1?", "subject": "b_sub", "choices": ["x", "y"], "answer": 1})"
      "\n");
  Put(dir_ / "data/q/a_sub/test.jsonl",
      R"({"question": "A1?", "subject": "a_sub", "choices": ["x", "y"], "answer": 0})"
      "\n\n"
      R"({"question": "A2?", "subject": "a_sub", "choices": ["p", "q", "r"], "answer": "2"})"
      "\n");
  PutExamples();
  const TaskDef def = Def(kLetters);
  auto items = LoadTaskItems(def, dir_ / "data", {});
  ASSERT_TRUE(items.ok()) << items.error().message;
  ASSERT_EQ(items->items.size(), 3u);  // files in sorted order, each in its order
  const Item& first = items->items[0];
  EXPECT_EQ(first.id, "q/a_sub/test.jsonl:1");
  EXPECT_EQ(first.group, "a_sub");
  ASSERT_EQ(first.contexts.size(), 1u);
  EXPECT_EQ(first.contexts[0],
            "About a sub.\n\nEx?\nA. m\nB. n\nAnswer: B\n\nA1?\nA. x\nB. y\nAnswer:");
  EXPECT_EQ(first.choices[1].continuation, " B");
  EXPECT_EQ(items->items[1].gold, 2);  // a numeric string
  EXPECT_EQ(items->items[1].line, 3);  // the blank line is skipped, not renumbered
  EXPECT_EQ(items->items[2].group, "b_sub");
  EXPECT_EQ(items->n_available, 3);
  // The selection: the first of each group, then a limit.
  auto some = LoadTaskItems(def, dir_ / "data", {.limit = 0, .per_group = 1});
  ASSERT_TRUE(some.ok());
  ASSERT_EQ(some->items.size(), 2u);
  EXPECT_EQ(some->items[1].group, "b_sub");
  auto one = LoadTaskItems(def, dir_ / "data", {.limit = 1, .per_group = 0});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->items.size(), 1u);
  // The hash covers what is scored: another prompt is another hash.
  EXPECT_NE(one->sha256, some->sha256);
  TaskDef other = def;
  other.continuation = *Template::Parse(" ({letter})", {});
  auto changed = LoadTaskItems(other, dir_ / "data", {.limit = 1, .per_group = 0});
  ASSERT_TRUE(changed.ok());
  EXPECT_NE(changed->sha256, one->sha256);
}

TEST(TaskSample, IsSeededStratifiedAndReproducible) {
  // 100 items in groups of 60, 30 and 10: a sample of 20 gives them 12, 6 and 2.
  std::vector<std::pair<std::string, std::string>> items;
  for (int i = 0; i < 100; ++i) {
    items.emplace_back("id" + std::to_string(i), i < 60 ? "a" : i < 90 ? "b" : "c");
  }
  const std::vector<bool> s = StratifiedSample(items, 20, 1234);
  int a = 0, b = 0, c = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!s[i]) continue;
    (items[i].second == "a" ? a : items[i].second == "b" ? b : c)++;
  }
  EXPECT_EQ(a, 12);
  EXPECT_EQ(b, 6);
  EXPECT_EQ(c, 2);
  EXPECT_EQ(StratifiedSample(items, 20, 1234), s);  // the same seed, the same items
  EXPECT_NE(StratifiedSample(items, 20, 7), s);     // another seed, others
  // Not the first of each group: spread over it.
  bool later = false;
  for (size_t i = 12; i < 60; ++i) later = later || s[i];
  EXPECT_TRUE(later);
  // Largest remainder: 3 items of 3 groups of sizes 5, 3, 2 (quotas 1.5, 0.9, 0.6).
  std::vector<std::pair<std::string, std::string>> small;
  for (int i = 0; i < 10; ++i)
    small.emplace_back(std::to_string(i), i < 5 ? "x" : i < 8 ? "y" : "z");
  const std::vector<bool> t = StratifiedSample(small, 3, 1);
  EXPECT_EQ(std::count(t.begin(), t.begin() + 5, true), 1);
  EXPECT_EQ(std::count(t.begin() + 5, t.begin() + 8, true), 1);
  EXPECT_EQ(std::count(t.begin() + 8, t.end(), true), 1);
  EXPECT_EQ(StratifiedSample(small, 50, 1), std::vector<bool>(10, true));  // more than there are
}

TEST_F(TaskItemsTest, ASampleMakesOnlyTheChosenItemsInTheirOrder) {
  std::string rows;
  for (int i = 0; i < 40; ++i) {
    rows += R"({"question": "Q)" + std::to_string(i) + R"(?", "subject": ")" +
            (i < 30 ? "a_sub" : "b_sub") + R"(", "choices": ["x", "y"], "answer": 0})" + "\n";
  }
  Put(dir_ / "data/q/all/test.jsonl", rows);
  PutExamples();
  const TaskDef def = Def(kLetters);
  auto items = LoadTaskItems(def, dir_ / "data", {.sample = 8, .seed = 5});
  ASSERT_TRUE(items.ok()) << items.error().message;
  ASSERT_EQ(items->items.size(), 8u);
  EXPECT_EQ(items->n_available, 40);
  int b = 0;
  for (size_t i = 0; i < items->items.size(); ++i) {
    b += items->items[i].group == "b_sub";
    if (i > 0) {
      EXPECT_LT(items->items[i - 1].line, items->items[i].line);  // the file's order
    }
  }
  EXPECT_EQ(b, 2);  // 8 × 10/40
  auto again = LoadTaskItems(def, dir_ / "data", {.sample = 8, .seed = 5});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->sha256, items->sha256);
  auto other = LoadTaskItems(def, dir_ / "data", {.sample = 8, .seed = 6});
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->sha256, items->sha256);
}

TEST_F(TaskItemsTest, RotationsReletterTheChoicesAndMoveTheGold) {
  Put(dir_ / "data/q/a_sub/test.jsonl",
      R"({"question": "A1?", "subject": "a_sub", "choices": ["w", "x", "y"], "answer": 1})"
      "\n");
  PutExamples();
  const TaskDef def = Def(kLetters);
  auto items = LoadTaskItems(def, dir_ / "data", {.rotate = true});
  ASSERT_TRUE(items.ok()) << items.error().message;
  ASSERT_EQ(items->items.size(), 3u);  // the original and 2 rotations
  const Item& r1 = items->items[1];
  EXPECT_EQ(r1.id, "q/a_sub/test.jsonl:1#r1");
  EXPECT_EQ(r1.base_id, "q/a_sub/test.jsonl:1");
  EXPECT_EQ(r1.rotation, 1);
  EXPECT_EQ(items->items[0].rotation, 0);
  EXPECT_EQ(items->items[0].gold, 1);
  EXPECT_EQ(r1.gold, 0);               // "x" moved from B to A
  EXPECT_EQ(items->items[2].gold, 2);  // and to C
  EXPECT_NE(r1.contexts[0].find("A1?\nA. x\nB. y\nC. w\nAnswer:"), std::string::npos)
      << r1.contexts[0];
  EXPECT_NE(r1.contexts[0].find("Ex?\nA. m\nB. n\nAnswer: B"), std::string::npos);  // not the shots
  // The limit counts items, not their rotations; OLMES sets cannot be rotated.
  auto one = LoadTaskItems(def, dir_ / "data", {.limit = 1, .rotate = true});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->items.size(), 3u);
  TaskDef olmes = def;
  olmes.rows.reset();
  olmes.olmes = OlmesSource{"o"};
  auto refused = LoadTaskItems(olmes, dir_ / "data", {.rotate = true});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("rotate: is for choice tasks made from rows"),
            std::string::npos);
}

TEST_F(TaskItemsTest, BadRowsNameTheirFileAndLine) {
  Put(dir_ / "data/q/a_sub/dev.jsonl",
      R"({"question": "Ex?", "subject": "a_sub", "choices": ["m", "n"], "answer": 1})"
      "\n");
  Put(dir_ / "data/q/a_sub/test.jsonl",
      R"({"question": "A1?", "subject": "a_sub", "choices": ["x", "y"], "answer": 0})"
      "\n"
      R"({"question": "A2?", "subject": "a_sub", "choices": ["x", "y"], "answer": 2})"
      "\n");
  auto items = LoadTaskItems(Def(kLetters), dir_ / "data", {});
  ASSERT_FALSE(items.ok());
  EXPECT_EQ(items.error().exit_code, 2);
  EXPECT_NE(items.error().message.find("test.jsonl:2"), std::string::npos) << items.error().message;
  EXPECT_NE(items.error().message.find("out of the 2 choices"), std::string::npos);
}

TEST_F(TaskItemsTest, OlmesRequestsGroupByDocumentAndLeaveOutUnconditioned) {
  const std::string req =
      R"({"request_type": "loglikelihood", "doc_id": 0, "idx": 0, "native_id": "n0", "label": 1, "request": {"context": "C0", "continuation": " a"}}
{"request_type": "loglikelihood", "doc_id": 0, "idx": 1, "native_id": "n0", "label": 1, "request": {"context": "C0", "continuation": " b"}}
{"request_type": "loglikelihood", "doc_id": 1, "idx": 0, "native_id": null, "label": 0, "request": {"context": "S x", "continuation": " rest."}}
{"request_type": "loglikelihood", "doc_id": 1, "idx": 1, "native_id": null, "label": 0, "request": {"context": "S y", "continuation": " rest."}}
{"request_type": "loglikelihood", "doc_id": 1000000, "idx": 0, "native_id": "n0", "label": 1, "request": {"context": "Answer:", "continuation": " a"}}
)";
  PutGz(dir_ / "data/o/requests.jsonl.gz", req);
  Put(dir_ / "data/o/config.json",
      R"({"task_config": {"metric_kwargs": {"uncond_docid_offset": 1000000}}})");
  const TaskDef def =
      Def("title: t\nconvention: c\nlicence: l\ndata: data\nitems: {olmes: o}\n"
          "scoring: {kind: choice, metric: acc_per_char}\n");
  auto items = LoadTaskItems(def, dir_ / "data", {});
  ASSERT_TRUE(items.ok()) << items.error().message;
  ASSERT_EQ(items->items.size(), 2u);
  EXPECT_EQ(items->items[0].id, "n0");
  EXPECT_EQ(items->items[0].gold, 1);
  EXPECT_EQ(items->items[0].contexts.size(), 1u);
  EXPECT_EQ(items->items[1].id, "1");
  EXPECT_EQ(items->items[1].contexts.size(), 2u);  // partial scoring
  EXPECT_EQ(items->files.size(), 2u);

  // The same items as llama-perplexity's files.
  auto mc = LlamaTaskFile({items->items[0]}, LlamaFormat::kMultipleChoice);
  ASSERT_TRUE(mc.ok()) << mc.error().message;
  // n=1, offset 8; question "C0"; 2 answers "a", "b"; labels 0, 1; mc2 empty.
  const std::string want = std::string("\x01\0\0\0\x08\0\0\0\x02\0\0\0C0\x02\0\0\0", 18) +
                           std::string("\x01\0\0\0a\x01\0\0\0b", 10) +
                           std::string("\0\0\0\0\x01\0\0\0\0\0\0\0", 12);
  EXPECT_EQ(*mc, want);
  auto wg = LlamaTaskFile({items->items[1]}, LlamaFormat::kWinogrande);
  ASSERT_TRUE(wg.ok()) << wg.error().message;
  EXPECT_EQ(*wg, "0,S _ rest.,x,y,1\n\n");
  // What a format cannot hold is refused, naming the item.
  auto no = LlamaTaskFile({items->items[1]}, LlamaFormat::kMultipleChoice);
  ASSERT_FALSE(no.ok());
  EXPECT_NE(no.error().message.find("item 1"), std::string::npos);
  EXPECT_FALSE(LlamaTaskFile({items->items[0]}, LlamaFormat::kHellaswag).ok());  // 2 endings

  // A request out of its document's order, a set cut short, a set without its config: refused.
  std::string swapped = req;
  swapped.replace(swapped.find("\"idx\": 1"), 8, "\"idx\": 2");
  PutGz(dir_ / "data/o/requests.jsonl.gz", swapped);
  auto order = LoadTaskItems(def, dir_ / "data", {});
  ASSERT_FALSE(order.ok());
  EXPECT_NE(order.error().message.find("idx 2"), std::string::npos) << order.error().message;
  PutGz(dir_ / "data/o/requests.jsonl.gz", req);
  const std::string whole = ReadBytes(dir_ / "data/o/requests.jsonl.gz");
  Put(dir_ / "data/o/requests.jsonl.gz", whole.substr(0, whole.size() / 2));
  auto cut = LoadTaskItems(def, dir_ / "data", {});
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().exit_code, 2);
  PutGz(dir_ / "data/o/requests.jsonl.gz", req);
  std::filesystem::remove(dir_ / "data/o/config.json");
  EXPECT_FALSE(LoadTaskItems(def, dir_ / "data", {}).ok());
}

TEST_F(TaskItemsTest, HellaswagFileIsSixLinesAnItem) {
  Item item;
  item.id = "h";
  item.contexts = {"Cooking: He"};
  for (const char* e : {" a.", " b.", " c.", " d."}) item.choices.push_back({0, e});
  item.gold = 2;
  auto hs = LlamaTaskFile({item}, LlamaFormat::kHellaswag);
  ASSERT_TRUE(hs.ok());
  EXPECT_EQ(*hs, "Cooking: He\n2\na.\nb.\nc.\nd.\n");
  item.contexts = {"Two\nlines"};
  EXPECT_FALSE(LlamaTaskFile({item}, LlamaFormat::kHellaswag).ok());
  EXPECT_FALSE(LlamaFormatNamed("llama-x").ok());
}

TEST_F(TaskItemsTest, PathsStayInTheDataFolder) {
  Put(dir_ / "data/q/a_sub/test.jsonl",
      R"({"question": "A1?", "subject": "../../x", "choices": ["x", "y"], "answer": 0})"
      "\n");
  auto items = LoadTaskItems(Def(kLetters), dir_ / "data", {});
  ASSERT_FALSE(items.ok());
  EXPECT_NE(items.error().message.find("leaves the data folder"), std::string::npos)
      << items.error().message;
}

TEST_F(TaskItemsTest, MissingDataSaysHowToFetchIt) {
  TaskDef def = Def(kLetters);
  auto dir = TaskDataDir(def, dir_ / "nowhere");
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.error().message.find("scripts/setup.sh"), std::string::npos);
  Put(dir_ / "data/.keep", "");
  auto found = TaskDataDir(def, dir_ / "nowhere");  // beside the definition
  ASSERT_TRUE(found.ok());
}

}  // namespace
}  // namespace pipette::workload::task
